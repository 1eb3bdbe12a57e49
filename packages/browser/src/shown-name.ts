// The name a user is shown for an answer: never `#domain`. The display name the service keeps
// (`signals.currentUserDetails.displayName`, standard variant) when there is one, else the user name before
// its last `#` (the service splits `<user>#<domain>` there).

/** What a page shows as "who": `Alice` for `alice#idp.example.com` with display name Alice, else `alice`. */
export function shownName(answer: unknown): string {
  const record = answer !== null && typeof answer === 'object' ? (answer as Record<string, unknown>) : {};
  const signals = record.signals as { currentUserDetails?: { displayName?: unknown } } | undefined;
  const displayName = signals?.currentUserDetails?.displayName;
  if (typeof displayName === 'string' && displayName.trim() !== '') return displayName.trim();
  const username = typeof record.username === 'string' ? record.username : '';
  const at = username.lastIndexOf('#');
  return at < 0 ? username : username.slice(0, at);
}
