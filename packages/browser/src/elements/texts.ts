// Every text the custom elements show, English by default; an element's `texts` property takes a partial
// table (translation), and its `messages` property the sentences of failures (service-errors.ts keys).

export const SIGN_IN_TEXTS = {
  label: 'User name',
  placeholder: '',
  continue: 'Continue',
  or: 'or',
  passkey: 'Sign in with a passkey',
  register: 'Create a passkey',
  registerHint: 'New here? Enter a user name, then create a passkey.',
  working: 'Waiting for your passkey…',
  needName: 'Enter your user name first.',
  signedIn: 'Signed in as',
} as const;

export type SignInTexts = { readonly [key in keyof typeof SIGN_IN_TEXTS]: string };

export const LIST_TEXTS = {
  heading: 'Passkeys',
  intro: 'Passkeys let you sign in with your fingerprint, face, screen lock or security key.',
  add: 'Add a passkey',
  delete: 'Delete',
  account: 'Signed in as',
  rename: 'Rename',
  renameLabel: 'Name of this passkey',
  renameSave: 'Save',
  renamed: 'Passkey renamed.',
  confirm: 'Delete this passkey? You will no longer be able to sign in with it.',
  confirmYes: 'Delete passkey',
  confirmNo: 'Cancel',
  synced: 'Synced',
  deviceBound: 'On one device',
  created: 'Created',
  lastUsed: 'Last used',
  never: 'never',
  unnamed: 'Passkey',
  empty: 'You have no passkeys yet.',
  loading: 'Loading your passkeys…',
  added: 'Passkey added.',
  deleted: 'Passkey deleted.',
  working: 'Waiting for your passkey…',
} as const;

export type ListTexts = { readonly [key in keyof typeof LIST_TEXTS]: string };
