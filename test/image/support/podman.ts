// podman for the image tests (test/image/, run by `npm run test:image`): every call bounded, with the tests'
// own containers.conf (CONTAINERS_CONF), host networking, everything on 127.0.0.1. The image is built once
// per test process from the checkout, FROM the stand-in base of scripts/stand-in-base.sh; a missing podman
// (or mmdebstrap) fails the test that needs it, loudly, never skips it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout: this file runs as .build/test/image/support/podman.js. */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
export const IMAGE = 'localhost/passkey-server:test';
const CONTAINERS_CONF = join(REPO, 'test', 'image', 'containers.conf');
/** The machine's CA bundle: npm inside the build reaches the registry through this machine's TLS proxy. */
const MACHINE_CA = '/etc/ssl/certs/ca-certificates.crt';
const DEBIAN_PACKAGES = 'podman buildah runc mmdebstrap docker-compose uidmap fuse-overlayfs slirp4netns';

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end or kills it after `limitMs`; a command that is not installed rejects, naming it. */
export function runCommand(
  command: string,
  args: readonly string[],
  limitMs: number,
  env: Record<string, string> = {},
): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd: REPO,
      env: { ...process.env, CONTAINERS_CONF, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(
        error.code === 'ENOENT'
          ? new Error(
              `${command} is not installed: the image tests need Debian's ${DEBIAN_PACKAGES} (.ci/run installs them)`,
            )
          : error,
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL') stderr += `\n(killed after ${limitMs} ms)`;
      done({ code, stdout, stderr });
    });
  });
}

/** The last part of a long output, for a failure message. */
const tail = (text: string) => text.slice(-4000);

/** podman with `args`; resolves its stdout, rejects with its output when it exits otherwise than 0. */
export async function podman(args: readonly string[], limitMs = 60_000): Promise<string> {
  const ran = await runCommand('podman', args, limitMs);
  if (ran.code !== 0) {
    throw new Error(
      `podman ${args.slice(0, 3).join(' ')} … exited ${ran.code}:\n${tail(ran.stdout)}\n${tail(ran.stderr)}`,
    );
  }
  return ran.stdout;
}

let built: Promise<string> | undefined;

/** The image built from the checkout (once per process; podman's layer cache makes a rebuild cheap). */
export function imageUnderTest(): Promise<string> {
  built ??= buildImage();
  return built;
}

/**
 * Builds the image, then tags its build stage too (from the layers just made) and drops the untagged images
 * earlier builds left: podman's cache keeps what the next build reuses, and CI's storage does not grow.
 */
async function buildImage(): Promise<string> {
  await podman(['--version']); // without podman: fails here, naming the packages to install
  const base = await runCommand('bash', [join(REPO, 'scripts', 'stand-in-base.sh')], 20 * 60_000);
  if (base.code !== 0) throw new Error(`scripts/stand-in-base.sh exited ${base.code}:\n${tail(base.stderr)}`);
  const build = (target: readonly string[], tag: string) =>
    podman(
      [
        'build',
        '--isolation=chroot',
        '--network',
        'host',
        '--build-arg',
        `NODE_IMAGE=${base.stdout.trim()}`,
        ...(existsSync(MACHINE_CA) ? ['--secret', `id=npm_ca,src=${MACHINE_CA}`] : []),
        ...target,
        '--tag',
        tag,
        '--file',
        join(REPO, 'Containerfile'),
        REPO,
      ],
      25 * 60_000,
    );
  await build([], IMAGE);
  await build(['--target', 'build'], `${IMAGE}-build-stage`);
  await podman(['image', 'prune', '--force'], 10 * 60_000);
  return IMAGE;
}

/** The base image the build used (scripts/stand-in-base.sh prints it; it exists once the image does). */
export async function standInBase(): Promise<string> {
  const ran = await runCommand('bash', [join(REPO, 'scripts', 'stand-in-base.sh')], 60_000);
  return ran.stdout.trim();
}

/** `podman image inspect` of one image, parsed. */
export async function inspectImage(image: string): Promise<any> {
  return JSON.parse(await podman(['image', 'inspect', image]))[0];
}
