/**
 * Invitations by email, against a real SMTP server (the `smtp-server` package on loopback): with
 * SMTP_URL set, inviting sends the link to the invited address; a server that refuses leaves the
 * invitation made and says it was not emailed.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

type Received = { from: string; to: string[]; body: string };
const received: Received[] = [];
let refuse = false;
let smtp: SMTPServer;
let t: TestApp;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo(address, _session, cb) {
      if (refuse) return cb(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      cb();
    },
    onData(stream, session, cb) {
      let body = '';
      stream.on('data', (c: Buffer) => (body += c.toString('utf8')));
      stream.on('end', () => {
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), body });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  t = await createTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: 'Groundwork <team@groundwork.test>' } });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

describe('invitation email', () => {
  it('sends the one-time link to the invited address', async () => {
    const { api_key } = await createOrgWithKey(t.deps, { name: 'Mail Co' });
    const res = await graphqlClient(t.app, api_key)('mutation { inviteMember(email: "new.person@example.test", role: "viewer") { link emailed } }');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.inviteMember.emailed).toBe(true);
    const mail = received.at(-1)!;
    expect(mail.to).toEqual(['new.person@example.test']);
    expect(mail.from).toBe('team@groundwork.test');
    expect(mail.body).toMatch(/Subject: You are invited to Mail Co on Groundwork/);
    // The quoted-printable body may wrap the link; unwrap soft line breaks before comparing.
    const token = new URL(res.body.data!.inviteMember.link).searchParams.get('token')!;
    expect(mail.body.replace(/=\r?\n/g, '')).toContain(token);
  });

  it('still makes the invitation when the mail server refuses, and says it was not emailed', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    refuse = true;
    try {
      const before = received.length;
      const res = await graphqlClient(t.app, api_key)('mutation { inviteMember(email: "bounce@example.test", role: "viewer") { link emailed } }');
      expect(res.body.data!.inviteMember).toMatchObject({ emailed: false, link: expect.stringContaining('/admin/invite?token=') });
      expect(received.length).toBe(before);
    } finally {
      refuse = false;
    }
  });
});
