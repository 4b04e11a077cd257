/**
 * How a live update reaches every process serving the app. A process publishes a frame to a
 * topic (one per booking, plus the control topic of ended sessions); every process, the sender
 * included, hears it and hands it to its own sockets with Bun's pub/sub (src/live/hub.ts).
 * In one process nothing leaves it (`LocalBroadcaster`); with `REDIS_URL` the frames go through
 * Redis pub/sub (`RedisBroadcaster`, src/live/redis.ts), so processes on one machine sharing a
 * port, or on several machines, reach each other's clients.
 */
export interface BroadcastListener {
  /** A frame published to `topic` by this process or another. */
  deliver(topic: string, data: string): void;
  /**
   * The link to the other processes was lost and is back: frames published meanwhile were not
   * delivered here, so clients should fetch what they missed.
   */
  resumed(): void;
}

export interface Broadcaster {
  /** Sends `data` (a JSON text) to `topic` in every process. Never throws; never waits. */
  publish(topic: string, data: string): void;
  /** Hears every publish in this process (one listener per process: its socket hub). */
  subscribe(listener: BroadcastListener): void;
  /** Resolves once frames from other processes arrive; throws when they cannot. */
  ready(): Promise<void>;
  close(): void;
}

/** One process: a publish is delivered at once, in this process only. */
export class LocalBroadcaster implements Broadcaster {
  private listener: BroadcastListener | null = null;

  publish(topic: string, data: string) {
    this.listener?.deliver(topic, data);
  }

  subscribe(listener: BroadcastListener) {
    this.listener = listener;
  }

  async ready() {}

  close() {
    this.listener = null;
  }
}
