/**
 * A test's WebSocket client of `/ws` (Bun's built-in WebSocket, which may send headers): keeps
 * every frame it receives and waits for the ones a test expects.
 */
export type Frame = Record<string, any>;

export class LiveClient {
  frames: Frame[] = [];
  /** Resolves with the close code once the socket closes (also when it never opened). */
  readonly closed: Promise<number>;
  readonly opened: Promise<boolean>;
  private waiters: (() => void)[] = [];
  private socket: WebSocket;

  constructor(url: string, headers: Record<string, string>) {
    this.socket = new WebSocket(url, { headers } as unknown as string[]);
    this.socket.onmessage = (e) => {
      this.frames.push(JSON.parse(String(e.data)) as Frame);
      for (const wake of this.waiters.splice(0)) wake();
    };
    this.opened = new Promise((resolve) => {
      this.socket.addEventListener("open", () => resolve(true));
      this.socket.addEventListener("close", () => resolve(false));
    });
    this.closed = new Promise((resolve) => this.socket.addEventListener("close", (e) => resolve(e.code)));
  }

  /** Opens a socket to `base` (http://…) with the cookies of `cookie` from `origin` (the page's own by default). */
  static async open(base: string, opts: { cookie?: string; origin?: string | null; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.origin !== null) headers.origin = opts.origin ?? base;
    const client = new LiveClient(`${base.replace(/^http/, "ws")}/ws`, headers);
    await client.opened;
    return client;
  }

  get isOpen() {
    return this.socket.readyState === WebSocket.OPEN;
  }

  send(frame: unknown) {
    this.socket.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /** The first frame (received so far or soon, from the `from`-th on) that matches; fails after `timeoutMs`. */
  async next(match: (f: Frame) => boolean, timeoutMs = 3000, from = 0): Promise<Frame> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found) return found;
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no matching frame within ${timeoutMs} ms; received ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
  }

  /** Subscribes and waits for its answer: `subscribed` or `error`. */
  async subscribe(bookingId: string) {
    const from = this.frames.length;
    this.send({ type: "subscribe_booking", bookingId });
    return this.next((f) => f.bookingId === bookingId && (f.type === "subscribed" || f.type === "error"), 3000, from);
  }

  /** Frames of one type (and booking). */
  of(type: string, bookingId?: string) {
    return this.frames.filter((f) => f.type === type && (bookingId === undefined || f.bookingId === bookingId));
  }

  close() {
    this.socket.close();
  }
}

/** The Cookie header a test client holds. */
export const cookieOf = (client: { cookies: Map<string, string> }) => [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
