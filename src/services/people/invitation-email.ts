/**
 * Invitations by email when SMTP_URL is set (nodemailer). Sending is best effort: the link is shown
 * once in the dashboard and printed by the CLI either way, and a mail server that refuses is logged
 * and reported as `emailed: false`, never a failed invitation.
 */
import { createTransport } from 'nodemailer';
import type { ServiceContext } from '../../context';

export async function sendInvitationEmail(ctx: Pick<ServiceContext, 'config' | 'logger' | 'org'>, msg: { to: string; link: string; role: string }): Promise<boolean> {
  const { smtpUrl, smtpFrom } = ctx.config.people;
  if (!smtpUrl) return false;
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  const transport = createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    // A mail server that hangs must not hold the invitation's request for nodemailer's default 2 minutes.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  try {
    await transport.sendMail({
      from: smtpFrom,
      to: msg.to,
      subject: `You are invited to ${ctx.org.name} on Groundwork`,
      text: `You are invited to ${ctx.org.name} on Groundwork as ${msg.role}.\n\nOpen this link within 7 days to set your password and sign in (it works once):\n${msg.link}\n`,
    });
    return true;
  } catch (err) {
    ctx.logger.warn({ err, to: msg.to }, 'invitation email not sent');
    return false;
  } finally {
    transport.close();
  }
}
