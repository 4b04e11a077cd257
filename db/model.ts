import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteDialect } from "./dialect";
import type { WeeklyHours } from "../shared/availability";

/**
 * The whole data model, written once for both engines (docs/decisions/0038): `db/schema-sqlite.ts`
 * builds it for SQLite and `db/schema-pg.ts` for PostgreSQL, each with its kit of column makers;
 * `db/schema.ts` hands the app the build of the engine it runs on.
 * Conventions: ids are random UUID text; instants are integer milliseconds since the epoch, UTC
 * (`instant`); money is integer cents and durations integer minutes (`integer`); lists and the
 * structured fields are JSON (`json`: JSON text on SQLite, jsonb on PostgreSQL).
 */

/**
 * The column makers for SQLite. Their types are the model's types on both engines: the app's
 * queries are typed once, against these; PostgreSQL's kit (db/schema-pg.ts) makes the same
 * columns for its engine.
 */
export const sqliteKit = {
  table: sqliteTable,
  /** Text: ids, names, enums. */
  text: <N extends string>(name: N) => text(name),
  /** An instant in milliseconds since the epoch (64-bit on PostgreSQL). */
  instant: <N extends string>(name: N) => integer(name, { mode: "number" }),
  /** A whole number: cents, minutes, counts. */
  integer: <N extends string>(name: N) => integer(name),
  flag: <N extends string>(name: N) => integer(name, { mode: "boolean" }),
  /** A JSON value, of the type given with `.$type<T>()`. */
  json: <N extends string>(name: N) => text(name, { mode: "json" }),
  index,
  uniqueIndex,
  primaryKey,
  /** "Now" in milliseconds, as a column default. */
  now: sql`(unixepoch('subsec') * 1000)`,
  /** The defaults of a JSON list and of a JSON object. */
  emptyList: sql`'[]'`,
  emptyObject: sql`'{}'`,
  /** "This flag is set", in an index's condition: the dialect's own spelling, which the queries it serves use too. */
  isTrue: sqliteDialect.isTrue,
};

export type Kit = typeof sqliteKit;

/** What an emailed token is for: verifying an address, resetting a password, joining a provider's account. */
export type EmailTokenPurpose = "verify" | "reset" | "link";

/** What a token carries beside its address: a pending email change, or a provider account waiting to be joined. */
export type EmailTokenData =
  | { change: true; sid: string | null }
  | { provider: string; subject: string; providerEmail: string | null; next: string };

export const bookingStatuses = [
  /** The slot is held for a few minutes while the guest pays (booking dialog, checkout page). */
  "awaiting_payment",
  "pending",
  "accepted",
  "rejected",
  "expired",
  "canceled",
  "completed",
  "no_show_guest",
  "no_show_host",
] as const;
export type BookingStatus = (typeof bookingStatuses)[number];

/**
 * What a guest gets back when they cancel an accepted booking, chosen by the host per activity and
 * copied onto each booking when it is requested: flexible (in full up to 24 hours before), moderate
 * (in full up to 3 days before, half after), strict (half up to 7 days before, nothing after).
 */
export const cancellationPolicies = ["flexible", "moderate", "strict"] as const;
export type CancellationPolicy = (typeof cancellationPolicies)[number];

/** How an activity is sold: one booking holds the host's time (private), or seats of a session (group). */
export const activityFormats = ["private", "group"] as const;
export type ActivityFormat = (typeof activityFormats)[number];

/** The money movements a booking's transitions ask the payment provider for. */
export type Movement = "capture" | "release" | "refund" | "transfer";

/**
 * What a claim (below) is for: one of those movements, or `authorize`, the guest's card held for
 * a booking awaiting payment, which the checkout page claims before the card is confirmed
 * (docs/decisions/0046).
 */
export type ClaimedMovement = Movement | "authorize";

/**
 * A money-moving change under way (docs/decisions/0028): written with a compare-and-set before
 * the provider is called, cleared in the transaction that records the provider's answer. While it
 * is set, no other change of the booking can start; the recovery job finishes it from what the
 * provider shows if the process never recorded the answer.
 */
export interface BookingClaim {
  movement: ClaimedMovement;
  /** The provider call's idempotency key: one per attempt, the same for every retry of it. */
  key: string;
  /** The intent the movement acts on (capture, release, refund; the transfer's source; the card authorised). */
  intentId: string;
  from: BookingStatus;
  to: BookingStatus;
  canceledBy: "guest" | "host" | null;
  /** The system message the change writes once recorded, and who sends it (null: nobody). */
  message: "booking_accepted" | "booking_declined" | "booking_expired" | "booking_canceled" | "session_not_running" | "booking_refunded" | null;
  senderId: string | null;
  /** An accept made on the host's behalf by instant booking (docs/decisions/0037), told to the host as such. */
  instant?: true;
  /**
   * The movement's amount when it is not the whole: a refund of part of the payment, a transfer of
   * the host's share as it is left after refunds. Absent: what remains (a refund), the host's
   * whole share (a transfer).
   */
  amountCents?: number;
  /** A refund's reason, as the guest reads it (docs/decisions/0051). */
  reason?: string;
  /**
   * A transfer's part withheld to settle what the host owes from refunds after earlier payouts
   * (docs/decisions/0051), oldest debt first: the booking owing and how much of it this payout
   * settles. `amountCents` is then what is sent, the share less these.
   */
  settles?: { bookingId: string; amountCents: number }[];
}

export const reportReasons = ["inappropriate_content", "scam_or_fraud", "safety_concern", "harassment", "fake_profile", "other"] as const;
export type ReportReason = (typeof reportReasons)[number];
/** What an operator did with a report: dismissed it, or acted on its target. */
export type ReportResolution = "dismissed" | "activity_hidden" | "user_suspended";

/**
 * authorize: the card is held; capture: charged; release: the hold is let go (never charged);
 * refund: a charge given back; platform_fee: what the platform keeps of a completed booking;
 * payout_pending: the host's share owed to them; transfer: that share sent to their payout
 * account; reverse: a transfer taken back; owed: the host's part of a refund made after their
 * share was sent that the provider would not take back (their balance had gone to their bank),
 * owed by the host; debt_settled: the part of a later payout withheld to settle such a debt (on the
 * booking paid); owed_settled: the same amount on the booking that owed it.
 */
export type LedgerKind = "authorize" | "capture" | "release" | "refund" | "transfer" | "reverse" | "platform_fee" | "payout_pending" | "owed" | "debt_settled" | "owed_settled";

/** Every table of the model, made with `k`'s column makers. */
export function model(k: Kit) {
  const createdAt = () => k.instant("created_at").notNull().default(k.now);
  const updatedAt = () => k.instant("updated_at").notNull().default(k.now);
  const jsonList = (name: string) => k.json(name).$type<string[]>().notNull().default(k.emptyList);

  const users = k.table(
    "users",
    {
      id: k.text("id").primaryKey(),
      username: k.text("username"),
      email: k.text("email"),
      emailVerified: k.flag("email_verified").notNull().default(false),
      passwordHash: k.text("password_hash"),
      firstName: k.text("first_name"),
      lastName: k.text("last_name"),
      /** First and last name joined with a space, as the spec's `name`. */
      name: k.text("name"),
      profileImageUrl: k.text("profile_image_url"),
      /** The main photo; always photos[0] when there are photos. */
      photo: k.text("photo"),
      photos: jsonList("photos"),
      bio: k.text("bio"),
      /** JSON text of the about fields (work, jobTitle, school ...), as the spec stores it. */
      about: k.text("about"),
      /** JSON text: field key to boolean; a field is hidden only when explicitly false. */
      aboutVisibility: k.text("about_visibility"),
      country: k.text("country"),
      city: k.text("city"),
      /** YYYY-MM-DD; age is derived from it, never stored. */
      dateOfBirth: k.text("date_of_birth"),
      phone: k.text("phone"),
      interests: jsonList("interests"),
      languages: jsonList("languages"),
      /** Interface language chosen by the user; null follows the browser. */
      locale: k.text("locale"),
      stripeCustomerId: k.text("stripe_customer_id"),
      stripeAccountId: k.text("stripe_account_id"),
      /** The connected payout account can receive transfers, as the provider last said (never a return URL). */
      payoutsEnabled: k.flag("payouts_enabled").notNull().default(false),
      /** Set by an operator (docs/decisions/0024): no sign-in, no sessions, activities hidden. */
      suspendedAt: k.instant("suspended_at"),
      /**
       * The private calendar feed (docs/decisions/0037): 0 while the person has none; each reset
       * adds one, so the link made from the previous number stops working.
       */
      calendarFeedVersion: k.integer("calendar_feed_version").notNull().default(0),
      /** A host's outside busy calendar (iCal URL), fetched by a durable job; its events block times. */
      busyCalendarUrl: k.text("busy_calendar_url"),
      busyCalendarFetchedAt: k.instant("busy_calendar_fetched_at"),
      /** Why the last fetch of the busy calendar failed, in plain words for the host; null after a good one. */
      busyCalendarError: k.text("busy_calendar_error"),
      /**
       * Set when the person deleted their account (or an operator did, at their request): the row
       * stays so the bookings, money lines, messages and reviews that point at it keep their
       * meaning, but every personal field is emptied and the email and username are free again.
       */
      deletedAt: k.instant("deleted_at"),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
    },
    (t) => [
      k.uniqueIndex("users_email_unique").on(t.email),
      k.uniqueIndex("users_username_unique").on(t.username),
    ],
  );

  /** A sign-in through an OAuth / OpenID Connect provider, linked to one user. */
  const oauthAccounts = k.table(
    "oauth_accounts",
    {
      provider: k.text("provider").notNull(),
      subject: k.text("subject").notNull(),
      userId: k.text("user_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      createdAt: createdAt(),
    },
    (t) => [k.primaryKey({ columns: [t.provider, t.subject] }), k.index("oauth_accounts_user").on(t.userId)],
  );

  /**
   * Server-side sessions. `sid` is the SHA-256 of the cookie's random token, so a copy of the
   * database does not hand out live sessions.
   */
  const sessions = k.table(
    "sessions",
    {
      sid: k.text("sid").primaryKey(),
      userId: k.text("user_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      sess: k.json("sess").$type<{ csrf: string }>().notNull(),
      expire: k.instant("expire").notNull(),
      createdAt: createdAt(),
    },
    (t) => [k.index("sessions_expire").on(t.expire), k.index("sessions_user").on(t.userId)],
  );

  /**
   * Tokens sent by email (docs/decisions/0034): `tokenHash` is the SHA-256 of the random token in
   * the link, so a copy of the database holds no live link. `email` is the address the token is
   * about (for an email change, the new one). Used once: `usedAt` is set by a compare-and-set in
   * the transaction of the change the token makes.
   */
  const emailTokens = k.table(
    "email_tokens",
    {
      tokenHash: k.text("token_hash").primaryKey(),
      userId: k.text("user_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      purpose: k.text("purpose").$type<EmailTokenPurpose>().notNull(),
      email: k.text("email").notNull(),
      data: k.json("data").$type<EmailTokenData>(),
      expiresAt: k.instant("expires_at").notNull(),
      usedAt: k.instant("used_at"),
      createdAt: createdAt(),
    },
    (t) => [k.index("email_tokens_user").on(t.userId)],
  );

  const activities = k.table(
    "activities",
    {
      id: k.text("id").primaryKey(),
      hostId: k.text("host_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      country: k.text("country").notNull(),
      city: k.text("city").notNull(),
      category: k.text("category").notNull(),
      title: k.text("title").notNull(),
      description: k.text("description").notNull(),
      hourlyRateCents: k.integer("hourly_rate_cents").notNull(),
      photos: jsonList("photos"),
      tags: jsonList("tags"),
      minDurationMinutes: k.integer("min_duration_minutes").notNull().default(60),
      /** Null reads as 240 minutes. */
      maxDurationMinutes: k.integer("max_duration_minutes"),
      meetingPoint: k.text("meeting_point"),
      /**
       * When guests may book, per weekday (0 Monday … 6 Sunday), as ranges of local minutes
       * [from, to) in the activity's zone: a booking lies wholly inside one range of its start's
       * day. Null: never set, starts from 08:00 to 22:00 every day as the booking screens offer.
       */
      weeklyHours: k.json("weekly_hours").$type<WeeklyHours>(),
      /** Minimum time between a request and the start it asks for. */
      noticeMinutes: k.integer("notice_minutes").notNull().default(0),
      /** How many days ahead (in the activity's zone) a guest may book. */
      horizonDays: k.integer("horizon_days").notNull().default(90),
      /** A paid request is accepted at once, without the host's answer. */
      instantBooking: k.flag("instant_booking").notNull().default(false),
      /**
       * How it is sold (docs/decisions/0049): "private", one booking holds the host's time, priced
       * by the hour; or "group", sessions of a fixed length whose seats are sold per person. The
       * group fields below are null for a private activity.
       */
      format: k.text("format").$type<ActivityFormat>().notNull().default("private"),
      /**
       * The ISO 4217 code (lower case) its prices are in: its city's currency when it was created.
       * Every amount of it, and of its bookings, is an integer in that currency's minor unit.
       */
      currency: k.text("currency").notNull().default("usd"),
      /** What a guest gets back on cancelling (see `cancellationPolicies`); copied onto each booking. */
      cancellationPolicy: k.text("cancellation_policy").$type<CancellationPolicy>().notNull().default("flexible"),
      /** A group session's seats, 2 to 50. */
      capacity: k.integer("capacity"),
      /** A group's price of one spot, in cents (`hourlyRateCents` repeats it, for the lists sorted by price). */
      pricePerPersonCents: k.integer("price_per_person_cents"),
      /** A group session's length: every guest shares its start and its end. */
      sessionMinutes: k.integer("session_minutes"),
      /** The fewest and most spots one booking may take. */
      minSpots: k.integer("min_spots"),
      maxSpots: k.integer("max_spots"),
      /** Set: a session still empty may be booked whole, for the higher of this and spots × price. */
      privateGroupPriceCents: k.integer("private_group_price_cents"),
      /** Set: the fewest spots a session runs with, counted `minToRunHours` before its start. */
      minToRun: k.integer("min_to_run"),
      minToRunHours: k.integer("min_to_run_hours"),
      hasMeetingPoint: k.flag("has_meeting_point").notNull().default(false),
      active: k.flag("active").notNull().default(true),
      featured: k.flag("featured").notNull().default(false),
      /** Set instead of deleting when the activity has bookings. */
      archivedAt: k.instant("archived_at"),
      /** Taken down by an operator, or with its host's suspension (docs/decisions/0024). */
      hiddenAt: k.instant("hidden_at"),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
    },
    (t) => [
      // Browse pages by (created_at, id) within a city; id breaks ties so paging needs no sort.
      // Partial: only listed activities (the browse queries spell the same condition literally),
      // so paging and the capped count never step over unlisted rows.
      k.index("activities_browse").on(t.city, t.createdAt, t.id).where(sql`${k.isTrue(t.active)} AND ${t.archivedAt} IS NULL AND ${t.hiddenAt} IS NULL`),
      k.index("activities_browse_category").on(t.city, t.category, t.createdAt, t.id).where(sql`${k.isTrue(t.active)} AND ${t.archivedAt} IS NULL AND ${t.hiddenAt} IS NULL`),
      k.index("activities_host").on(t.hostId, t.createdAt),
    ],
  );

  const bookings = k.table(
    "bookings",
    {
      id: k.text("id").primaryKey(),
      guestId: k.text("guest_id")
        .notNull()
        .references(() => users.id),
      hostId: k.text("host_id")
        .notNull()
        .references(() => users.id),
      activityId: k.text("activity_id")
        .notNull()
        .references(() => activities.id),
      status: k.text("status").$type<BookingStatus>().notNull().default("pending"),
      /** Wall-clock start in the activity's city, 'YYYY-MM-DDTHH:MM:00'. */
      startsAtLocal: k.text("starts_at_local").notNull(),
      timeZone: k.text("time_zone").notNull(),
      startsAt: k.instant("starts_at").notNull(),
      endsAt: k.instant("ends_at").notNull(),
      durationMinutes: k.integer("duration_minutes").notNull(),
      hourlyRateCents: k.integer("hourly_rate_cents").notNull(),
      subtotalCents: k.integer("subtotal_cents").notNull(),
      serviceFeeCents: k.integer("service_fee_cents").notNull(),
      totalCents: k.integer("total_cents").notNull(),
      platformFeeCents: k.integer("platform_fee_cents").notNull(),
      hostEarningsCents: k.integer("host_earnings_cents").notNull(),
      /** How many seats of a group session the booking takes (1 for a private booking). */
      spots: k.integer("spots").notNull().default(1),
      /** A group session's price of one spot when booked; null: a private booking, priced by the hour. */
      pricePerPersonCents: k.integer("price_per_person_cents"),
      /** A group session booked whole (its private-group choice): no other guest joins it. */
      privateGroup: k.flag("private_group").notNull().default(false),
      currency: k.text("currency").notNull().default("usd"),
      /** The activity's cancellation policy when the booking was requested: later edits never change it. */
      cancellationPolicy: k.text("cancellation_policy").$type<CancellationPolicy>().notNull().default("flexible"),
      /** How much of what the guest paid has been given back so far (minor units): never more than `totalCents`. */
      refundedCents: k.integer("refunded_cents").notNull().default(0),
      message: k.text("message"),
      paymentProvider: k.text("payment_provider"),
      paymentIntentId: k.text("payment_intent_id"),
      chatId: k.text("chat_id"),
      /** When a pending request expires unanswered. */
      respondBy: k.instant("respond_by").notNull(),
      /** While awaiting payment: the slot is held until this instant. */
      holdUntil: k.instant("hold_until"),
      /** The hosted checkout page of the booking dialog flow. */
      checkoutSessionId: k.text("checkout_session_id"),
      /** Who cancelled: guest or host (null for every other state). */
      canceledBy: k.text("canceled_by").$type<"guest" | "host">(),
      respondedAt: k.instant("responded_at"),
      completedAt: k.instant("completed_at"),
      /** The money movement under way, if any (docs/decisions/0028). */
      claim: k.json("claim").$type<BookingClaim>(),
      claimedAt: k.instant("claimed_at"),
      /** How many claims were ever made on the booking: numbers each attempt's idempotency key. */
      claims: k.integer("claims").notNull().default(0),
      /** What the reconciliation found different at the provider and could not repair, for the operator. */
      paymentIssue: k.text("payment_issue"),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
    },
    (t) => [
      k.index("bookings_claimed").on(t.claimedAt).where(sql`${t.claim} IS NOT NULL`),
      k.index("bookings_payment_issue").on(t.updatedAt).where(sql`${t.paymentIssue} IS NOT NULL`),
      k.index("bookings_guest").on(t.guestId, t.createdAt),
      k.index("bookings_host").on(t.hostId, t.status, t.startsAt),
      // The activity's bookings, and a group session's seats: its bookings by (activity, start).
      k.index("bookings_activity").on(t.activityId, t.startsAt),
      k.index("bookings_expiry").on(t.status, t.respondBy),
      // One booking per authorisation: creating a booking twice from one payment finds the first.
      k.uniqueIndex("bookings_payment_intent").on(t.paymentIntentId),
    ],
  );

  /**
   * A host's days off and blocked times, across all their activities: the UTC instants
   * [startsAt, endsAt), the wall clock they were given in (`timeZone`, the host's city then), and
   * a note only the host sees.
   */
  const hostBlocks = k.table(
    "host_blocks",
    {
      id: k.text("id").primaryKey(),
      hostId: k.text("host_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      startsAt: k.instant("starts_at").notNull(),
      endsAt: k.instant("ends_at").notNull(),
      timeZone: k.text("time_zone").notNull(),
      /** True for whole days (shown as dates), false for a time range. */
      allDay: k.flag("all_day").notNull().default(false),
      note: k.text("note"),
      createdAt: createdAt(),
    },
    (t) => [k.index("host_blocks_host").on(t.hostId, t.endsAt)],
  );

  /** Busy times read from a host's outside calendar (users.busyCalendarUrl), replaced whole by each fetch. */
  const externalBusy = k.table(
    "external_busy",
    {
      id: k.text("id").primaryKey(),
      hostId: k.text("host_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      startsAt: k.instant("starts_at").notNull(),
      endsAt: k.instant("ends_at").notNull(),
    },
    (t) => [k.index("external_busy_host").on(t.hostId, t.endsAt)],
  );

  const messages = k.table(
    "messages",
    {
      id: k.text("id").primaryKey(),
      bookingId: k.text("booking_id")
        .notNull()
        .references(() => bookings.id, { onDelete: "cascade" }),
      senderId: k.text("sender_id").references(() => users.id, { onDelete: "set null" }),
      content: k.text("content").notNull(),
      isSystemMessage: k.flag("is_system_message").notNull().default(false),
      systemMessageType: k.text("system_message_type"),
      readBy: jsonList("read_by"),
      createdAt: createdAt(),
      /**
       * The message's place in its conversation, 1 for the first: what orders messages written in
       * the same millisecond, on either engine (set by `nextMessageSeq` in the transaction that
       * writes it; unique per conversation).
       */
      seq: k.integer("seq").notNull().default(0),
    },
    (t) => [k.index("messages_booking").on(t.bookingId, t.createdAt), k.uniqueIndex("messages_booking_seq").on(t.bookingId, t.seq)],
  );

  const reviews = k.table(
    "reviews",
    {
      id: k.text("id").primaryKey(),
      bookingId: k.text("booking_id")
        .notNull()
        .references(() => bookings.id),
      reviewerId: k.text("reviewer_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      reviewedUserId: k.text("reviewed_user_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      activityId: k.text("activity_id").references(() => activities.id),
      stars: k.integer("stars").notNull(),
      text: k.text("text"),
      /**
       * Null while the review is hidden (double-blind, docs/decisions/0023): set when the other
       * side has written theirs, or 14 days after the booking's completion. Only published reviews
       * are shown or counted.
       */
      publishedAt: k.instant("published_at"),
      createdAt: createdAt(),
    },
    (t) => [
      k.uniqueIndex("reviews_once_per_side").on(t.bookingId, t.reviewerId),
      k.index("reviews_reviewed").on(t.reviewedUserId, t.createdAt),
      k.index("reviews_activity").on(t.activityId, t.createdAt),
      k.index("reviews_reviewer").on(t.reviewerId, t.createdAt),
    ],
  );

  const reports = k.table(
    "reports",
    {
      id: k.text("id").primaryKey(),
      reporterId: k.text("reporter_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      targetUserId: k.text("target_user_id").references(() => users.id, { onDelete: "set null" }),
      targetActivityId: k.text("target_activity_id").references(() => activities.id, { onDelete: "set null" }),
      reason: k.text("reason").$type<ReportReason>().notNull(),
      notes: k.text("notes"),
      /** pending until an operator handles it, then resolved (`resolution` says how). */
      status: k.text("status").$type<"pending" | "resolved">().notNull().default("pending"),
      resolution: k.text("resolution").$type<ReportResolution>(),
      /** The operator who handled it, and when. */
      reviewedBy: k.text("reviewed_by").references(() => users.id, { onDelete: "set null" }),
      reviewedAt: k.instant("reviewed_at"),
      createdAt: createdAt(),
    },
    (t) => [
      k.index("reports_status").on(t.status, t.createdAt),
      k.index("reports_target_user").on(t.targetUserId),
      k.index("reports_target_activity").on(t.targetActivityId),
      // One open report per reporter and target: a second one while the first waits is refused.
      k.uniqueIndex("reports_open_user").on(t.reporterId, t.targetUserId).where(sql`${t.status} = 'pending' AND ${t.targetUserId} IS NOT NULL`),
      k.uniqueIndex("reports_open_activity").on(t.reporterId, t.targetActivityId).where(sql`${t.status} = 'pending' AND ${t.targetActivityId} IS NOT NULL`),
    ],
  );

  const pushSubscriptions = k.table(
    "push_subscriptions",
    {
      id: k.text("id").primaryKey(),
      userId: k.text("user_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      endpoint: k.text("endpoint").notNull(),
      p256dhKey: k.text("p256dh_key").notNull(),
      authKey: k.text("auth_key").notNull(),
      userAgent: k.text("user_agent"),
      /** The language of the browser that subscribed: notifications use it when the user chose none. */
      locale: k.text("locale"),
      isActive: k.flag("is_active").notNull().default(true),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
    },
    (t) => [k.uniqueIndex("push_subscriptions_endpoint").on(t.endpoint), k.index("push_subscriptions_user").on(t.userId)],
  );

  const notificationPreferences = k.table("notification_preferences", {
    userId: k.text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    bookingRequests: k.flag("booking_requests").notNull().default(true),
    bookingConfirmations: k.flag("booking_confirmations").notNull().default(true),
    messages: k.flag("messages").notNull().default(true),
    reviews: k.flag("reviews").notNull().default(true),
    activityUpdates: k.flag("activity_updates").notNull().default(true),
    paymentNotifications: k.flag("payment_notifications").notNull().default(true),
    reminders: k.flag("reminders").notNull().default(true),
    marketingEmails: k.flag("marketing_emails").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  });

  /**
   * Every money movement, written in the same transaction as the booking status change it
   * belongs to. The idempotency key is derived from the booking and the action.
   */
  /**
   * A part of a booking's payment given back (a host's partial refund, a cancellation's refund under
   * its policy), with the reason the guest sees. `key` is the provider call's idempotency key, one
   * per refund, so a refund is recorded once whoever records it.
   */
  const bookingRefunds = k.table(
    "booking_refunds",
    {
      id: k.text("id").primaryKey(),
      bookingId: k.text("booking_id")
        .notNull()
        .references(() => bookings.id),
      amountCents: k.integer("amount_cents").notNull(),
      currency: k.text("currency").notNull(),
      reason: k.text("reason"),
      /** Who gave it: the host, or null for the system (a cancellation under its policy). */
      byUserId: k.text("by_user_id").references(() => users.id, { onDelete: "set null" }),
      key: k.text("key").notNull(),
      providerRef: k.text("provider_ref"),
      createdAt: createdAt(),
    },
    (t) => [k.uniqueIndex("booking_refunds_key").on(t.key), k.index("booking_refunds_booking").on(t.bookingId, t.createdAt)],
  );

  const ledgerEntries = k.table(
    "ledger_entries",
    {
      id: k.text("id").primaryKey(),
      bookingId: k.text("booking_id")
        .notNull()
        .references(() => bookings.id),
      kind: k.text("kind").$type<LedgerKind>().notNull(),
      amountCents: k.integer("amount_cents").notNull(),
      currency: k.text("currency").notNull().default("usd"),
      provider: k.text("provider").notNull(),
      providerRef: k.text("provider_ref"),
      idempotencyKey: k.text("idempotency_key").notNull(),
      createdAt: createdAt(),
    },
    (t) => [k.uniqueIndex("ledger_idempotency").on(t.idempotencyKey), k.index("ledger_booking").on(t.bookingId)],
  );

  /**
   * A photo upload: made pending by POST /api/objects/upload (a short-lived signed URL), then
   * turned into a stored, re-encoded photo by PUT /api/profile-images or /api/activity-images.
   * `objectId` names the stored photo; only its uploader may attach it to a profile or activity.
   */
  const uploads = k.table(
    "uploads",
    {
      id: k.text("id").primaryKey(),
      userId: k.text("user_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      status: k.text("status").$type<"pending" | "receiving" | "received" | "processing" | "processed" | "failed">().notNull().default("pending"),
      objectId: k.text("object_id"),
      expiresAt: k.instant("expires_at").notNull(),
      createdAt: createdAt(),
    },
    (t) => [k.uniqueIndex("uploads_object").on(t.objectId), k.index("uploads_user").on(t.userId, t.createdAt)],
  );

  /**
   * Timed work that must survive restarts (answer windows, payouts, reminders, cleanup): one row
   * per job, run at least once when due by the app's job runner (src/jobs/index.ts). A row is
   * deleted once its job has run; `key` makes scheduling the same job twice a no-op.
   */
  const jobs = k.table(
    "jobs",
    {
      id: k.text("id").primaryKey(),
      kind: k.text("kind").notNull(),
      /** Unique when set: the job's identity, such as "booking.expire:{bookingId}". */
      key: k.text("key"),
      payload: k.json("payload").$type<unknown>().notNull().default(k.emptyObject),
      runAt: k.instant("run_at").notNull(),
      attempts: k.integer("attempts").notNull().default(0),
      /** While a runner works on the job, until this instant; a crashed run is picked up after it. */
      leaseUntil: k.instant("lease_until"),
      lastError: k.text("last_error"),
      /** Set when the job gave up after its last attempt; such rows stay for the operator to read. */
      failedAt: k.instant("failed_at"),
      createdAt: createdAt(),
    },
    (t) => [k.uniqueIndex("jobs_key").on(t.key), k.index("jobs_due").on(t.failedAt, t.runAt)],
  );

  /**
   * Roles that one process at a time holds while several serve the same database, such as running
   * the durable jobs ("jobs"): the holder renews its row before `until`; once a holder stops renewing
   * (it stopped or crashed), another process takes the row over.
   */
  /**
   * One row counting the changes made through any machine (PostgreSQL; docs/decisions/0038): each
   * machine drops what it kept of the database (`readCache`) when the count moves. SQLite has
   * `PRAGMA data_version` and leaves this table empty.
   */
  const dataVersion = k.table("data_version", {
    id: k.integer("id").primaryKey(),
    /** Moves by one after every committed write transaction (a 64-bit count). */
    version: k.instant("version").notNull(),
  });

  const leases = k.table("leases", {
    name: k.text("name").primaryKey(),
    /** The holding process's random id, made when it starts. */
    holder: k.text("holder").notNull(),
    until: k.instant("until").notNull(),
  });

  /**
   * Payment provider notifications, by the provider's event id: a webhook delivered again
   * (providers retry, and may send the same event several times) is answered but not handled twice.
   * A delivery claims the event (`claimedAt`) before handing it on and marks it handled after
   * (`handledAt`); an event claimed but never marked handled (the process died while handling it)
   * is claimed again by a later delivery once that handling can no longer be under way
   * (src/payments/webhooks.ts).
   */
  const paymentEvents = k.table("payment_events", {
    id: k.text("id").primaryKey(),
    type: k.text("type").notNull(),
    /** The first delivery. */
    receivedAt: k.instant("received_at").notNull(),
    /** When the delivery handling it now claimed it (rows from before the column: `received_at`, set by the migration). */
    claimedAt: k.instant("claimed_at").notNull().default(0),
    /** When its handling ended; null while it is under way, or when the process died during it. */
    handledAt: k.instant("handled_at"),
  });

  /**
   * What a guest chose on the date-time screen (spec "Booking selection"), kept on the server so a
   * reload, a second tab or another device shows the same choice. One per guest and activity;
   * `nonce` changes with every new choice and keys the payment made for it.
   */
  const bookingSelections = k.table(
    "booking_selections",
    {
      userId: k.text("user_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      activityId: k.text("activity_id")
        .notNull()
        .references(() => activities.id, { onDelete: "cascade" }),
      /** YYYY-MM-DD and HH:00, wall clock in the activity's city. */
      date: k.text("date").notNull(),
      time: k.text("time").notNull(),
      durationMinutes: k.integer("duration_minutes").notNull(),
      /** A group session's spots, and whether it is taken whole (1 and false for a private activity). */
      spots: k.integer("spots").notNull().default(1),
      privateGroup: k.flag("private_group").notNull().default(false),
      nonce: k.text("nonce").notNull(),
      updatedAt: updatedAt(),
    },
    (t) => [k.primaryKey({ columns: [t.userId, t.activityId] })],
  );

  /**
   * An activity a guest keeps to come back to. No foreign key to the activity: a saved activity
   * that is deleted stays in the list, named by the title it had when saved, and says it is gone.
   */
  const savedActivities = k.table(
    "saved_activities",
    {
      userId: k.text("user_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      activityId: k.text("activity_id").notNull(),
      /** The activity's title when it was saved, for the list once the activity is gone. */
      title: k.text("title").notNull(),
      createdAt: createdAt(),
    },
    (t) => [k.primaryKey({ columns: [t.userId, t.activityId] }), k.index("saved_activities_user").on(t.userId, t.createdAt)],
  );

  /**
   * A copy of what the marketplace holds about one person, too large to answer at once: prepared
   * by a durable job, then fetched once through an emailed link (`tokenHash` is the SHA-256 of
   * the link's random token) before `expiresAt`.
   */
  const dataExports = k.table(
    "data_exports",
    {
      id: k.text("id").primaryKey(),
      userId: k.text("user_id")
        .notNull()
        .references(() => users.id, { onDelete: "cascade" }),
      status: k.text("status").$type<"preparing" | "ready" | "downloaded" | "expired">().notNull().default("preparing"),
      tokenHash: k.text("token_hash"),
      /** Where the prepared file is kept (a key of the file store). */
      fileKey: k.text("file_key"),
      bytes: k.integer("bytes"),
      expiresAt: k.instant("expires_at"),
      usedAt: k.instant("used_at"),
      createdAt: createdAt(),
    },
    (t) => [k.uniqueIndex("data_exports_token").on(t.tokenHash), k.index("data_exports_user").on(t.userId, t.createdAt)],
  );

  /**
   * The log of account deletions, kept without personal data: when, asked by whom (the person, or
   * an operator on their behalf), and whether their files are gone yet.
   */
  const accountDeletions = k.table("account_deletions", {
    id: k.text("id").primaryKey(),
    requestedBy: k.text("requested_by").$type<"self" | "operator">().notNull(),
    /** The operator who ran it, for a deletion asked by email. */
    operatorId: k.text("operator_id"),
    /** Set once every file of the account is removed (a durable job retries until then). */
    filesRemovedAt: k.instant("files_removed_at"),
    createdAt: createdAt(),
  });

  /**
   * The built-in test payment provider keeps its state here (src/payments/test-provider.ts):
   * PaymentIntents, checkout sessions, payout accounts, and every money operation by its
   * idempotency key (captures, releases, refunds, transfers, reversals).
   */
  const testPaymentIntents = k.table(
    "test_payment_intents",
    {
      id: k.text("id").primaryKey(),
      clientSecret: k.text("client_secret").notNull(),
      status: k.text("status").notNull(),
      amountCents: k.integer("amount_cents").notNull(),
      currency: k.text("currency").notNull(),
      metadata: k.json("metadata").$type<Record<string, string>>().notNull(),
      description: k.text("description"),
      lastError: k.text("last_error"),
      idempotencyKey: k.text("idempotency_key").notNull(),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
    },
    (t) => [k.uniqueIndex("test_payment_intents_key").on(t.idempotencyKey), k.uniqueIndex("test_payment_intents_secret").on(t.clientSecret)],
  );

  const testPaymentOperations = k.table(
    "test_payment_operations",
    {
      id: k.text("id").primaryKey(),
      kind: k.text("kind").$type<"capture" | "release" | "refund" | "transfer" | "reverse" | "payout">().notNull(),
      /** The intent (capture, release, refund), transfer (reverse) or payout account (payout: its balance sent to its bank) it acts on. */
      target: k.text("target").notNull(),
      amountCents: k.integer("amount_cents").notNull(),
      /** Transfers: the payout account. */
      destination: k.text("destination"),
      /** Transfers: the transfer group they were made with (Stripe's `transfer_group`). */
      transferGroup: k.text("transfer_group"),
      idempotencyKey: k.text("idempotency_key").notNull(),
      createdAt: createdAt(),
    },
    (t) => [
      k.uniqueIndex("test_payment_operations_key").on(t.idempotencyKey),
      k.index("test_payment_operations_target").on(t.target),
      k.index("test_payment_operations_group").on(t.transferGroup),
    ],
  );

  const testCheckoutSessions = k.table(
    "test_checkout_sessions",
    {
      id: k.text("id").primaryKey(),
      paymentIntentId: k.text("payment_intent_id").notNull(),
      status: k.text("status").$type<"open" | "complete" | "expired">().notNull().default("open"),
      description: k.text("description").notNull(),
      successUrl: k.text("success_url").notNull(),
      cancelUrl: k.text("cancel_url").notNull(),
      idempotencyKey: k.text("idempotency_key").notNull(),
      createdAt: createdAt(),
    },
    (t) => [k.uniqueIndex("test_checkout_sessions_key").on(t.idempotencyKey)],
  );

  const testConnectedAccounts = k.table(
    "test_connected_accounts",
    {
      id: k.text("id").primaryKey(),
      userId: k.text("user_id").notNull(),
      email: k.text("email"),
      payoutsEnabled: k.flag("payouts_enabled").notNull().default(false),
      idempotencyKey: k.text("idempotency_key").notNull(),
      createdAt: createdAt(),
    },
    (t) => [k.uniqueIndex("test_connected_accounts_key").on(t.idempotencyKey)],
  );

  return { users, oauthAccounts, sessions, emailTokens, activities, bookings, hostBlocks, externalBusy, messages, reviews, reports, pushSubscriptions, notificationPreferences, ledgerEntries, bookingRefunds, uploads, jobs, leases, dataVersion, paymentEvents, bookingSelections, savedActivities, dataExports, accountDeletions, testPaymentIntents, testPaymentOperations, testCheckoutSessions, testConnectedAccounts };
}
