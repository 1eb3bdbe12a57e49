// A service for the tests that reload FIDO metadata themselves: started in process on a config file, its
// output dropped, with no periodic metadata check (PASSKEY_METADATA_CHECK_INTERVAL_MS 0: a reload happens
// when the test calls it), and an admin caller holding a fresh admin token.
import { FileAdminTokenStore } from '../../src/admin/tokens.js';
import { startService, type RunningService } from '../../src/main.js';
import { systemRuntime } from '../../src/util/runtime.js';
import { adminCaller, type AdminCall } from './admin-call.js';

export async function startReloadingService(
  file: string,
  dir: string,
): Promise<{ running: RunningService; admin: AdminCall }> {
  const quiet = { write: () => true };
  const running = await startService({
    configFile: file,
    env: { PASSKEY_METADATA_CHECK_INTERVAL_MS: '0' },
    cwd: dir,
    stdout: quiet,
    stderr: quiet,
  });
  const { token } = await new FileAdminTokenStore(running.config.ops!.admin.tokensFile, systemRuntime).create('t');
  return {
    running,
    admin: adminCaller(
      () => running.adminUrl!,
      () => token,
    ),
  };
}
