// A browser runs one WebAuthn request at a time: a modal create()/get() must first end the pending
// conditional request of the autofill. The autofill registers itself here; `exclusive` pauses it around a
// modal ceremony, resumes it when that failed and ends it when that succeeded (the user is signed in).

export interface Pausable {
  pause(): Promise<void>;
  resume(): void;
  end(): void;
}

let active: Pausable | undefined;

export function setActiveAutofill(autofill: Pausable | undefined): void {
  active = autofill;
}

export function activeAutofill(): Pausable | undefined {
  return active;
}

export async function exclusive<T>(run: () => Promise<T>): Promise<T> {
  const paused = active;
  await paused?.pause();
  let result: T;
  try {
    result = await run();
  } catch (error) {
    paused?.resume();
    throw error;
  }
  paused?.end();
  return result;
}
