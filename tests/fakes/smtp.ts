import { simpleParser, type ParsedMail } from "mailparser";
import { connect, createServer, type Socket } from "node:net";
import { SMTPServer } from "smtp-server";
import { until } from "../helpers";

/**
 * A real SMTP server inside the suite (the `smtp-server` package): the app's real client
 * (nodemailer) connects to it over TCP, logs in, and hands it whole messages, which are parsed
 * back with `mailparser`. `refuseNext` answers the next messages with a temporary failure, as a
 * busy server does.
 *
 * The app connects to a front door (a plain TCP server) that hands each connection to the SMTP
 * server, or misbehaves as broken mail servers do: `stall` accepts connections and then says
 * nothing more; `trickle` sends every reply one byte at a time, so the connection is never idle
 * long enough for a socket timeout and a send never ends. `behave` drops every connection (as a
 * restarted server does) and answers normally again.
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
  /** From now on, nothing more is said on any connection, new or open (new ones are still accepted). */
  stall(): void;
  /** From now on, every byte of a reply comes `everyMs` after the one before (a new connection's greeting comes whole). */
  trickle(everyMs?: number): void;
  /** Answers normally again; every open connection is dropped, as a restarted server drops them. */
  behave(): void;
  /** How many connections had a reply held back or trickled. */
  misbehavedConnections(): number;
  close(): Promise<void>;
}

type Behaviour = { mode: "normal" } | { mode: "stall" } | { mode: "trickle"; everyMs: number };

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
  const smtpPort = (server.server.address() as { port: number }).port;

  let behaviour: Behaviour = { mode: "normal" };
  let misbehaved = 0;
  /** Every open connection, with what drops it. */
  const open = new Map<Socket, () => void>();
  const front = createServer((client) => {
    client.on("error", () => {});
    const upstream = connect(smtpPort, "127.0.0.1");
    upstream.on("error", () => client.destroy());
    let drip: ReturnType<typeof setInterval> | undefined;
    const drop = () => {
      clearInterval(drip);
      client.destroy();
      upstream.destroy();
    };
    open.set(client, drop);
    client.on("close", () => {
      open.delete(client);
      drop();
    });
    upstream.on("close", () => client.destroy());
    client.pipe(upstream);
    // The server's replies go as the behaviour of the moment says, on new and open connections alike.
    let greeted = false;
    let counted = false;
    const waiting: number[] = [];
    upstream.on("data", (chunk: Buffer) => {
      const now = behaviour;
      if (now.mode === "normal") {
        greeted = true;
        return void client.write(chunk);
      }
      if (!counted) (counted = true), misbehaved++;
      if (now.mode === "stall") return; // nothing is ever said
      let rest = chunk;
      if (!greeted) {
        // The greeting goes whole (a greeting timeout would notice a slow one); then a byte at a time.
        const end = chunk.indexOf("\r\n");
        if (end === -1) return void client.write(chunk);
        greeted = true;
        client.write(chunk.subarray(0, end + 2));
        rest = chunk.subarray(end + 2);
      }
      waiting.push(...rest);
      drip ??= setInterval(() => {
        const byte = waiting.shift();
        if (byte !== undefined && !client.destroyed) client.write(Buffer.of(byte));
      }, now.everyMs);
    });
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", () => resolve()));
  const port = (front.address() as { port: number }).port;
  const dropAll = () => {
    for (const drop of [...open.values()]) drop();
  };
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
    stall: () => void (behaviour = { mode: "stall" }),
    trickle: (everyMs = 100) => void (behaviour = { mode: "trickle", everyMs }),
    behave() {
      // As a restarted server: every connection is dropped, the next ones are answered.
      behaviour = { mode: "normal" };
      dropAll();
    },
    misbehavedConnections: () => misbehaved,
    async close() {
      dropAll();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
