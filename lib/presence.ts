/**
 * Who is looking at which conversation right now (an open, visible conversation screen with a
 * live connection). Notifications ask it so that a person reading a conversation is not also
 * pushed its messages. The live channel tells it when a screen opens, hides or closes.
 */
export interface Presence {
  /** `userId` has the conversation of `bookingId` open and visible on some device. */
  isViewing(userId: string, bookingId: string): Promise<boolean>;
  /** One more screen of `userId` shows that conversation. */
  enter(userId: string, bookingId: string): void;
  /** One screen of `userId` stopped showing it (hidden or closed). */
  leave(userId: string, bookingId: string): void;
}

/**
 * Counts open views in this process: all there is with one process. With several (`REDIS_URL`),
 * src/live/redis.ts shares them through Redis.
 */
export class LocalPresence implements Presence {
  private views = new Map<string, number>();

  private key(userId: string, bookingId: string) {
    return `${userId}:${bookingId}`;
  }

  enter(userId: string, bookingId: string) {
    const key = this.key(userId, bookingId);
    this.views.set(key, (this.views.get(key) ?? 0) + 1);
  }

  leave(userId: string, bookingId: string) {
    const key = this.key(userId, bookingId);
    const left = (this.views.get(key) ?? 0) - 1;
    if (left > 0) this.views.set(key, left);
    else this.views.delete(key);
  }

  async isViewing(userId: string, bookingId: string) {
    return (this.views.get(this.key(userId, bookingId)) ?? 0) > 0;
  }
}
