/**
 * An SMTP server for tests (the smtp-server package) on a free loopback port: AUTH PLAIN/LOGIN
 * against a user table, no TLS, every accepted message kept raw, and, when given `deliver`, handed
 * on (the mail tests append it to the recipient's IMAP INBOX, so a reply really arrives).
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: Buffer;
}

export interface FakeSmtp {
  host: string;
  port: number;
  received: ReceivedMail[];
  close(): Promise<void>;
}

export async function startFakeSmtp(
  users: Record<string, string>,
  deliver?: (mail: ReceivedMail) => Promise<void>,
): Promise<FakeSmtp> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username && users[auth.username] === auth.password) callback(null, { user: auth.username });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
        };
        received.push(mail);
        (deliver ? deliver(mail) : Promise.resolve()).then(
          () => callback(),
          (error: unknown) => callback(error as Error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
