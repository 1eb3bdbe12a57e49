// The table of statement builders the soft authenticator uses. Adding a format = one file + one line here.
import { androidKey } from './android-key.js';
import { androidSafetynet } from './android-safetynet.js';
import { apple } from './apple.js';
import { fidoU2f } from './fido-u2f.js';
import { none } from './none.js';
import { packed } from './packed.js';
import { tpm } from './tpm.js';
import type { StatementBuilder } from './types.js';

export type { StatementBuilder, StatementInput, StatementOptions } from './types.js';

export const STATEMENT_BUILDERS: ReadonlyMap<string, StatementBuilder> = new Map(
  [none, packed, fidoU2f, tpm, androidKey, androidSafetynet, apple].map((builder) => [builder.fmt, builder]),
);
