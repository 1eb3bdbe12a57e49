// The demo's public entry: main.ts calls startDemo when config.demo.enabled and prints the URLs.
export { startDemo } from './server.js';
export type { DemoOptions, RunningDemo } from './server.js';
export { ensureDevCertificate } from './tls.js';
export type { DevCertificate } from './tls.js';
