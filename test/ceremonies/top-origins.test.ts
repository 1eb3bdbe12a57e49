// WebAuthn L3 §7.1 step 10 / §7.2 step 13 over a real socket: a ceremony in a cross-origin frame is
// accepted only when the application allows it and lists the top-level page that embedded it.
import { after, before, describe, it } from 'node:test';
import { applicationConfig, expectFailure, expectOk, Flow, username } from '../support/harness.js';
import { SocketHarness } from '../support/socket-harness.js';

const PORTAL = 'https://portal.example';

describe('topOrigins: where a cross-origin ceremony may be embedded (over the socket)', () => {
  let framed: SocketHarness;
  let strict: SocketHarness;
  before(async () => {
    framed = await SocketHarness.start({ apps: [applicationConfig({ allowCrossOrigin: true, topOrigins: [PORTAL] })] });
    strict = await SocketHarness.start();
  });
  after(async () => {
    await framed.close();
    await strict.close();
  });

  it('registers and signs in inside a frame of a listed top origin', async () => {
    const flow = new Flow(framed, username('framed'));
    const inFrame = { crossOrigin: true, clientData: { topOrigin: PORTAL } };
    expectOk((await flow.register(inFrame)).res);
    expectOk((await flow.authenticate(inFrame)).res);
  });

  it('a top origin the application does not list fails with TOP_ORIGIN_NOT_MATCHED, at registration and sign-in', async () => {
    const flow = new Flow(framed, username('elsewhere'));
    const elsewhere = { crossOrigin: true, clientData: { topOrigin: 'https://evil.example' } };
    expectFailure((await flow.register(elsewhere)).res, 'TOP_ORIGIN_NOT_MATCHED', 400);
    expectOk((await flow.register({ crossOrigin: true, clientData: { topOrigin: PORTAL } })).res);
    expectFailure((await flow.authenticate(elsewhere)).res, 'TOP_ORIGIN_NOT_MATCHED', 400);
  });

  it('crossOrigin true without a topOrigin fails with TOP_ORIGIN_NOT_MATCHED (it cannot show where it was embedded)', async () => {
    const flow = new Flow(framed, username('untold'));
    expectFailure((await flow.register({ crossOrigin: true })).res, 'TOP_ORIGIN_NOT_MATCHED', 400);
  });

  it('a same-origin ceremony is unaffected by topOrigins', async () => {
    const flow = new Flow(framed, username('top-level'));
    expectOk((await flow.register()).res);
    expectOk((await flow.authenticate()).res);
  });

  it('without allowCrossOrigin a listed-looking top origin still fails with CROSS_ORIGIN_NOT_ALLOWED', async () => {
    const flow = new Flow(strict, username('strict'));
    expectFailure(
      (await flow.register({ crossOrigin: true, clientData: { topOrigin: PORTAL } })).res,
      'CROSS_ORIGIN_NOT_ALLOWED',
      400,
    );
  });
});
