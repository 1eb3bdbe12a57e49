// The help text of the command line (the admin commands' own text, from src/admin/cli.ts, at the end).
import { ADMIN_USAGE } from '../admin/cli.js';

export const USAGE = `Usage: passkey-server <command> [options]

Commands:
  serve [--config <file>] [--host <h>] [--port <n>] [--no-demo]
                           start the service (the default command; what "npm start" runs)
  check-config [--config <file>]
                           validate the configuration, print every problem (exit 1 when there are any)
  migrate [--config <file>]
                           apply pending database migrations (needed before serving on PostgreSQL)
  local-keys rotate [--config <file>]
                           add a new newest local-blob key to the secrets file (older keys keep opening)
  secrets init [--config <file>] [--file <path>]
                           create a secrets file (for deployments where secrets are never generated)
  apps list [--config <file>] [--json]
                           list the configured applications
  metadata check [--config <file>] [--blob <new.jwt>] [--app <clientId>] [--json]
                           verify (or install) a FIDO metadata BLOB and list credentials it now refuses
                           (exit 3 when there are any; see docs/attestation.md)
  admin <command> ...      tokens, applications, credentials, audit log (below; see docs/admin.md)
  help                     this text

Without --config the built-in default configuration is used (SQLite in ./data, the demo application).
Environment variables override single settings: see docs/configuration.md.

${ADMIN_USAGE}`;
