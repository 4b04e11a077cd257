import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { until } from "../helpers";

/**
 * A real SMTP server inside the suite (the `smtp-server` package): the app's real client
 * (nodemailer) connects to it over TCP, logs in, and hands it whole messages, which are parsed
 * back with `mailparser`. `refuseNext` answers the next messages with a temporary failure, as a
 * busy server does.
 */
export interface ReceivedEmail {
  to: string[];
  from: string;
  raw: string;
  parsed: ParsedMail;
  subject: string;
  text: string;
  html: string;
  /** Every http(s) link in the plain-text part, in order. */
  links: string[];
  header(name: string): string | undefined;
}

export interface FakeSmtp {
  url: string;
  port: number;
  received: ReceivedEmail[];
  /** The next `n` messages are answered `451 Try again later`. */
  refuseNext(n: number): void;
  /** Waits for an email to `to` matching `match` (on the subject or the text), and answers it. */
  waitFor(to: string, match?: RegExp, timeoutMs?: number): Promise<ReceivedEmail>;
  to(address: string): ReceivedEmail[];
  close(): Promise<void>;
}

export async function startFakeSmtp(opts: { user?: string; password?: string } = {}): Promise<FakeSmtp> {
  const user = opts.user ?? "offline";
  const password = opts.password ?? "secret";
  const received: ReceivedEmail[] = [];
  let refusals = 0;
  const server = new SMTPServer({
    // Plain text on a local port: no certificate to make. Real servers are reached with STARTTLS or smtps://.
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) return callback(null, { user });
      callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      const ended = async () => {
        if (refusals > 0) {
          refusals--;
          const err = new Error("Try again later") as Error & { responseCode: number };
          err.responseCode = 451;
          return callback(err);
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        const parsed = await simpleParser(raw);
        const text = parsed.text ?? "";
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          raw,
          parsed,
          subject: parsed.subject ?? "",
          text,
          html: typeof parsed.html === "string" ? parsed.html : "",
          links: [...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => m[0]),
          // As written, unfolded (mailparser turns some headers, List-* among them, into objects).
          header: (name) => {
            const line = parsed.headerLines.find((h) => h.key === name.toLowerCase())?.line;
            return line?.slice(line.indexOf(":") + 1).replace(/\r?\n[ \t]+/g, " ").trim();
          },
        });
        callback();
      };
      // A message that cannot be parsed fails its delivery, as a real server's error would.
      stream.on("end", () => void ended().catch((err: Error) => callback(err)));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  const forAddress = (address: string) => received.filter((m) => m.to.includes(address.toLowerCase()) || m.to.includes(address));
  return {
    url: `smtp://${user}:${password}@127.0.0.1:${port}`,
    port,
    received,
    refuseNext: (n) => (refusals = n),
    to: forAddress,
    async waitFor(to, match, timeoutMs = 10_000) {
      const find = () => forAddress(to).find((m) => !match || match.test(m.subject) || match.test(m.text));
      await until(`an email to ${to}${match ? ` matching ${match}` : ""}`, () => !!find(), timeoutMs);
      return find()!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
