// `passkey-server admin token create|list|revoke`: admin tokens are made only here (the token printed once;
// only its SHA-256 is kept in the token file).
import { AdminError } from './errors.js';
import type { AdminTokenStore } from './tokens.js';

export async function tokenCommand(
  command: string | undefined,
  rest: readonly string[],
  tokens: AdminTokenStore,
  print: (v: unknown) => void,
  usage: (message: string) => Error,
): Promise<number> {
  const want = (count: number, names: string) => {
    if (rest.length !== count) throw usage(`expected ${names}`);
    return rest;
  };
  if (command === 'create') {
    const [name] = want(1, 'a token name');
    const { token, info } = await tokens.create(name!);
    print({
      ...info,
      createdAt: new Date(info.createdAt).toISOString(),
      token,
      note: 'Shown once: only its SHA-256 is stored. Send it as "Authorization: Bearer <token>".',
    });
    return 0;
  }
  if (command === 'list') {
    want(0, 'no argument');
    print({ tokens: (await tokens.list()).map((t) => ({ ...t, createdAt: new Date(t.createdAt).toISOString() })) });
    return 0;
  }
  if (command === 'revoke') {
    const [id] = want(1, 'a token id');
    if (!(await tokens.revoke(id!))) throw new AdminError('NOT_FOUND', `no admin token with id ${id}`);
    print({ revoked: id });
    return 0;
  }
  throw usage('token create|list|revoke');
}
