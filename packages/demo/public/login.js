// The demo's login page, built on the browser package's elements as an integrator builds one: the relay
// serves them (/relay/passkeys.mjs); this file only switches between the login card and the security page
// and fills the closed "Developer details". Who is signed in always comes from the service's answer (the
// element's event) or from the demo's session, never from the input field.
const $ = (id) => document.getElementById(id);

let context = null;

function showSecurity(user) {
  $('login').hidden = true;
  $('security').hidden = false;
  $('sign-out').hidden = false;
  $('user').textContent = user;
  $('local-note').hidden = context.variant === 'standard';
  // Made once signed in: the element lists the session's passkeys as soon as it is on the page (in the
  // local variant the relay lists the ones its store keeps).
  const list = $('passkeys').querySelector('passkey-list');
  if (list) list.reload();
  else {
    const element = document.createElement('passkey-list');
    element.setAttribute('relay', '/relay');
    $('passkeys').append(element);
  }
}

function showLogin() {
  $('security').hidden = true;
  $('sign-out').hidden = true;
  $('login').hidden = false;
}

function developerDetails(answer) {
  $('last-answer').textContent = JSON.stringify(answer, null, 2);
}

async function start() {
  context = await (await fetch('/demo/context')).json();
  $('variant').textContent = context.variant;
  $('suffix').textContent = context.suffix;
  const other = context.variant === 'standard' ? context.localUrl : context.standardUrl;
  $('switch-variant').href = other;
  $('switch-variant').textContent = `Switch to the ${context.variant === 'standard' ? 'local' : 'standard'} variant`;
  document.body.dataset.variant = context.variant;

  const signIn = document.querySelector('passkey-sign-in');
  signIn.addEventListener('passkey-signed-in', (event) => {
    developerDetails(event.detail);
    $('error-name').textContent = 'none';
    showSecurity(event.detail.username);
  });
  document.addEventListener('passkey-error', (event) => {
    $('error-name').textContent = event.detail.name;
    developerDetails({ name: event.detail.name, detail: event.detail.detail, message: event.detail.message });
  });
  $('sign-out').addEventListener('click', async () => {
    await fetch('/demo/sign-out', { method: 'POST' });
    location.assign('/');
  });

  if (context.user) showSecurity(context.user);
  else showLogin();
  document.body.dataset.ready = 'true';
}

start();
