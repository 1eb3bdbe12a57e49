// The admin console's build (`npm run build`, `npm run pretest`): console/index.html and console/src/ into
// console/dist/, which the admin listener serves at /console/ (src/admin/console.ts). Scripts and styles
// become files of assets/ (nothing inline: the page's Content-Security-Policy allows no inline script or
// style), named by their hash.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  logLevel: 'warn',
  clearScreen: false,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
