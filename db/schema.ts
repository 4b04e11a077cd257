import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { WeeklyHours } from "../shared/availability";

/**
 * The whole data model. Conventions: ids are random UUID text; instants are integer
 * milliseconds since the epoch (UTC); money is integer cents; durations are integer minutes;
 * lists and the about data are JSON text.
 */

const now = sql`(unixepoch('subsec') * 1000)`;
const createdAt = () => integer("created_at", { mode: "number" }).notNull().default(now);
const updatedAt = () => integer("updated_at", { mode: "number" }).notNull().default(now);
const jsonList = (name: string) =>
  text(name, { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`);

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    username: text("username"),
    email: text("email"),
    emailVerified: integer("email_verified", { mode: "boolean" }).notNull().default(false),
    passwordHash: text("password_hash"),
    firstName: text("first_name"),
    lastName: text("last_name"),
    /** First and last name joined with a space, as the spec's `name`. */
    name: text("name"),
    profileImageUrl: text("profile_image_url"),
    /** The main photo; always photos[0] when there are photos. */
    photo: text("photo"),
    photos: jsonList("photos"),
    bio: text("bio"),
    /** JSON text of the about fields (work, jobTitle, school ...), as the spec stores it. */
    about: text("about"),
    /** JSON text: field key to boolean; a field is hidden only when explicitly false. */
    aboutVisibility: text("about_visibility"),
    country: text("country"),
    city: text("city"),
    /** YYYY-MM-DD; age is derived from it, never stored. */
    dateOfBirth: text("date_of_birth"),
    phone: text("phone"),
    interests: jsonList("interests"),
    languages: jsonList("languages"),
    /** Interface language chosen by the user; null follows the browser. */
    locale: text("locale"),
    stripeCustomerId: text("stripe_customer_id"),
    stripeAccountId: text("stripe_account_id"),
    /** The connected payout account can receive transfers, as the provider last said (never a return URL). */
    payoutsEnabled: integer("payouts_enabled", { mode: "boolean" }).notNull().default(false),
    /** Set by an operator (docs/decisions/0024): no sign-in, no sessions, activities hidden. */
    suspendedAt: integer("suspended_at", { mode: "number" }),
    /**
     * The private calendar feed (docs/decisions/0037): 0 while the person has none; each reset
     * adds one, so the link made from the previous number stops working.
     */
    calendarFeedVersion: integer("calendar_feed_version").notNull().default(0),
    /** A host's outside busy calendar (iCal URL), fetched by a durable job; its events block times. */
    busyCalendarUrl: text("busy_calendar_url"),
    busyCalendarFetchedAt: integer("busy_calendar_fetched_at", { mode: "number" }),
    /** Why the last fetch of the busy calendar failed, in plain words for the host; null after a good one. */
    busyCalendarError: text("busy_calendar_error"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("users_email_unique").on(t.email),
    uniqueIndex("users_username_unique").on(t.username),
  ],
);

/** A sign-in through an OAuth / OpenID Connect provider, linked to one user. */
export const oauthAccounts = sqliteTable(
  "oauth_accounts",
  {
    provider: text("provider").notNull(),
    subject: text("subject").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.subject] }), index("oauth_accounts_user").on(t.userId)],
);

/**
 * Server-side sessions. `sid` is the SHA-256 of the cookie's random token, so a copy of the
 * database does not hand out live sessions.
 */
export const sessions = sqliteTable(
  "sessions",
  {
    sid: text("sid").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sess: text("sess", { mode: "json" }).$type<{ csrf: string }>().notNull(),
    expire: integer("expire", { mode: "number" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("sessions_expire").on(t.expire), index("sessions_user").on(t.userId)],
);

/** What an emailed token is for: verifying an address, resetting a password, joining a provider's account. */
export type EmailTokenPurpose = "verify" | "reset" | "link";

/** What a token carries beside its address: a pending email change, or a provider account waiting to be joined. */
export type EmailTokenData =
  | { change: true; sid: string | null }
  | { provider: string; subject: string; providerEmail: string | null; next: string };

/**
 * Tokens sent by email (docs/decisions/0034): `tokenHash` is the SHA-256 of the random token in
 * the link, so a copy of the database holds no live link. `email` is the address the token is
 * about (for an email change, the new one). Used once: `usedAt` is set by a compare-and-set in
 * the transaction of the change the token makes.
 */
export const emailTokens = sqliteTable(
  "email_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: text("purpose").$type<EmailTokenPurpose>().notNull(),
    email: text("email").notNull(),
    data: text("data", { mode: "json" }).$type<EmailTokenData>(),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
    usedAt: integer("used_at", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [index("email_tokens_user").on(t.userId)],
);

export const activities = sqliteTable(
  "activities",
  {
    id: text("id").primaryKey(),
    hostId: text("host_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    country: text("country").notNull(),
    city: text("city").notNull(),
    category: text("category").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull(),
    hourlyRateCents: integer("hourly_rate_cents").notNull(),
    photos: jsonList("photos"),
    tags: jsonList("tags"),
    minDurationMinutes: integer("min_duration_minutes").notNull().default(60),
    /** Null reads as 240 minutes. */
    maxDurationMinutes: integer("max_duration_minutes"),
    meetingPoint: text("meeting_point"),
    /**
     * When guests may book, per weekday (0 Monday … 6 Sunday), as ranges of local minutes
     * [from, to) in the activity's zone: a booking lies wholly inside one range of its start's
     * day. Null: never set, starts from 08:00 to 22:00 every day as the booking screens offer.
     */
    weeklyHours: text("weekly_hours", { mode: "json" }).$type<WeeklyHours>(),
    /** Minimum time between a request and the start it asks for. */
    noticeMinutes: integer("notice_minutes").notNull().default(0),
    /** How many days ahead (in the activity's zone) a guest may book. */
    horizonDays: integer("horizon_days").notNull().default(90),
    /** A paid request is accepted at once, without the host's answer. */
    instantBooking: integer("instant_booking", { mode: "boolean" }).notNull().default(false),
    hasMeetingPoint: integer("has_meeting_point", { mode: "boolean" }).notNull().default(false),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    featured: integer("featured", { mode: "boolean" }).notNull().default(false),
    /** Set instead of deleting when the activity has bookings. */
    archivedAt: integer("archived_at", { mode: "number" }),
    /** Taken down by an operator, or with its host's suspension (docs/decisions/0024). */
    hiddenAt: integer("hidden_at", { mode: "number" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Browse pages by (created_at, id) within a city; id breaks ties so paging needs no sort.
    // Partial: only listed activities (the browse queries spell the same condition literally),
    // so paging and the capped count never step over unlisted rows.
    index("activities_browse").on(t.city, t.createdAt, t.id).where(sql`${t.active} = 1 AND ${t.archivedAt} IS NULL AND ${t.hiddenAt} IS NULL`),
    index("activities_browse_category").on(t.city, t.category, t.createdAt, t.id).where(sql`${t.active} = 1 AND ${t.archivedAt} IS NULL AND ${t.hiddenAt} IS NULL`),
    index("activities_host").on(t.hostId, t.createdAt),
  ],
);

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

/** The money movements a booking's transitions ask the payment provider for. */
export type Movement = "capture" | "release" | "refund" | "transfer";

/**
 * A money-moving change under way (docs/decisions/0028): written with a compare-and-set before
 * the provider is called, cleared in the transaction that records the provider's answer. While it
 * is set, no other change of the booking can start; the recovery job finishes it from what the
 * provider shows if the process never recorded the answer.
 */
export interface BookingClaim {
  movement: Movement;
  /** The provider call's idempotency key: one per attempt, the same for every retry of it. */
  key: string;
  /** The intent the movement acts on (capture, release, refund; the transfer's source). */
  intentId: string;
  from: BookingStatus;
  to: BookingStatus;
  canceledBy: "guest" | "host" | null;
  /** The system message the change writes once recorded, and who sends it (null: nobody). */
  message: "booking_accepted" | "booking_declined" | "booking_expired" | "booking_canceled" | null;
  senderId: string | null;
}

export const bookings = sqliteTable(
  "bookings",
  {
    id: text("id").primaryKey(),
    guestId: text("guest_id")
      .notNull()
      .references(() => users.id),
    hostId: text("host_id")
      .notNull()
      .references(() => users.id),
    activityId: text("activity_id")
      .notNull()
      .references(() => activities.id),
    status: text("status").$type<BookingStatus>().notNull().default("pending"),
    /** Wall-clock start in the activity's city, 'YYYY-MM-DDTHH:MM:00'. */
    startsAtLocal: text("starts_at_local").notNull(),
    timeZone: text("time_zone").notNull(),
    startsAt: integer("starts_at", { mode: "number" }).notNull(),
    endsAt: integer("ends_at", { mode: "number" }).notNull(),
    durationMinutes: integer("duration_minutes").notNull(),
    hourlyRateCents: integer("hourly_rate_cents").notNull(),
    subtotalCents: integer("subtotal_cents").notNull(),
    serviceFeeCents: integer("service_fee_cents").notNull(),
    totalCents: integer("total_cents").notNull(),
    platformFeeCents: integer("platform_fee_cents").notNull(),
    hostEarningsCents: integer("host_earnings_cents").notNull(),
    currency: text("currency").notNull().default("usd"),
    message: text("message"),
    paymentProvider: text("payment_provider"),
    paymentIntentId: text("payment_intent_id"),
    chatId: text("chat_id"),
    /** When a pending request expires unanswered. */
    respondBy: integer("respond_by", { mode: "number" }).notNull(),
    /** While awaiting payment: the slot is held until this instant. */
    holdUntil: integer("hold_until", { mode: "number" }),
    /** The hosted checkout page of the booking dialog flow. */
    checkoutSessionId: text("checkout_session_id"),
    /** Who cancelled: guest or host (null for every other state). */
    canceledBy: text("canceled_by").$type<"guest" | "host">(),
    respondedAt: integer("responded_at", { mode: "number" }),
    completedAt: integer("completed_at", { mode: "number" }),
    /** The money movement under way, if any (docs/decisions/0028). */
    claim: text("claim", { mode: "json" }).$type<BookingClaim>(),
    claimedAt: integer("claimed_at", { mode: "number" }),
    /** How many claims were ever made on the booking: numbers each attempt's idempotency key. */
    claims: integer("claims").notNull().default(0),
    /** What the reconciliation found different at the provider and could not repair, for the operator. */
    paymentIssue: text("payment_issue"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("bookings_claimed").on(t.claimedAt).where(sql`${t.claim} IS NOT NULL`),
    index("bookings_payment_issue").on(t.updatedAt).where(sql`${t.paymentIssue} IS NOT NULL`),
    index("bookings_guest").on(t.guestId, t.createdAt),
    index("bookings_host").on(t.hostId, t.status, t.startsAt),
    index("bookings_activity").on(t.activityId),
    index("bookings_expiry").on(t.status, t.respondBy),
    // One booking per authorisation: creating a booking twice from one payment finds the first.
    uniqueIndex("bookings_payment_intent").on(t.paymentIntentId),
  ],
);

/**
 * A host's days off and blocked times, across all their activities: the UTC instants
 * [startsAt, endsAt), the wall clock they were given in (`timeZone`, the host's city then), and
 * a note only the host sees.
 */
export const hostBlocks = sqliteTable(
  "host_blocks",
  {
    id: text("id").primaryKey(),
    hostId: text("host_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    startsAt: integer("starts_at", { mode: "number" }).notNull(),
    endsAt: integer("ends_at", { mode: "number" }).notNull(),
    timeZone: text("time_zone").notNull(),
    /** True for whole days (shown as dates), false for a time range. */
    allDay: integer("all_day", { mode: "boolean" }).notNull().default(false),
    note: text("note"),
    createdAt: createdAt(),
  },
  (t) => [index("host_blocks_host").on(t.hostId, t.endsAt)],
);

/** Busy times read from a host's outside calendar (users.busyCalendarUrl), replaced whole by each fetch. */
export const externalBusy = sqliteTable(
  "external_busy",
  {
    id: text("id").primaryKey(),
    hostId: text("host_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    startsAt: integer("starts_at", { mode: "number" }).notNull(),
    endsAt: integer("ends_at", { mode: "number" }).notNull(),
  },
  (t) => [index("external_busy_host").on(t.hostId, t.endsAt)],
);

export const messages = sqliteTable(
  "messages",
  {
    id: text("id").primaryKey(),
    bookingId: text("booking_id")
      .notNull()
      .references(() => bookings.id, { onDelete: "cascade" }),
    senderId: text("sender_id").references(() => users.id, { onDelete: "set null" }),
    content: text("content").notNull(),
    isSystemMessage: integer("is_system_message", { mode: "boolean" }).notNull().default(false),
    systemMessageType: text("system_message_type"),
    readBy: jsonList("read_by"),
    createdAt: createdAt(),
  },
  (t) => [index("messages_booking").on(t.bookingId, t.createdAt)],
);

export const reviews = sqliteTable(
  "reviews",
  {
    id: text("id").primaryKey(),
    bookingId: text("booking_id")
      .notNull()
      .references(() => bookings.id),
    reviewerId: text("reviewer_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    reviewedUserId: text("reviewed_user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    activityId: text("activity_id").references(() => activities.id),
    stars: integer("stars").notNull(),
    text: text("text"),
    /**
     * Null while the review is hidden (double-blind, docs/decisions/0023): set when the other
     * side has written theirs, or 14 days after the booking's completion. Only published reviews
     * are shown or counted.
     */
    publishedAt: integer("published_at", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("reviews_once_per_side").on(t.bookingId, t.reviewerId),
    index("reviews_reviewed").on(t.reviewedUserId, t.createdAt),
    index("reviews_activity").on(t.activityId, t.createdAt),
    index("reviews_reviewer").on(t.reviewerId, t.createdAt),
  ],
);

export const reportReasons = ["inappropriate_content", "scam_or_fraud", "safety_concern", "harassment", "fake_profile", "other"] as const;
export type ReportReason = (typeof reportReasons)[number];
/** What an operator did with a report: dismissed it, or acted on its target. */
export type ReportResolution = "dismissed" | "activity_hidden" | "user_suspended";

export const reports = sqliteTable(
  "reports",
  {
    id: text("id").primaryKey(),
    reporterId: text("reporter_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    targetUserId: text("target_user_id").references(() => users.id, { onDelete: "set null" }),
    targetActivityId: text("target_activity_id").references(() => activities.id, { onDelete: "set null" }),
    reason: text("reason").$type<ReportReason>().notNull(),
    notes: text("notes"),
    /** pending until an operator handles it, then resolved (`resolution` says how). */
    status: text("status").$type<"pending" | "resolved">().notNull().default("pending"),
    resolution: text("resolution").$type<ReportResolution>(),
    /** The operator who handled it, and when. */
    reviewedBy: text("reviewed_by").references(() => users.id, { onDelete: "set null" }),
    reviewedAt: integer("reviewed_at", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("reports_status").on(t.status, t.createdAt),
    index("reports_target_user").on(t.targetUserId),
    index("reports_target_activity").on(t.targetActivityId),
    // One open report per reporter and target: a second one while the first waits is refused.
    uniqueIndex("reports_open_user").on(t.reporterId, t.targetUserId).where(sql`${t.status} = 'pending' AND ${t.targetUserId} IS NOT NULL`),
    uniqueIndex("reports_open_activity").on(t.reporterId, t.targetActivityId).where(sql`${t.status} = 'pending' AND ${t.targetActivityId} IS NOT NULL`),
  ],
);

export const pushSubscriptions = sqliteTable(
  "push_subscriptions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    endpoint: text("endpoint").notNull(),
    p256dhKey: text("p256dh_key").notNull(),
    authKey: text("auth_key").notNull(),
    userAgent: text("user_agent"),
    /** The language of the browser that subscribed: notifications use it when the user chose none. */
    locale: text("locale"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("push_subscriptions_endpoint").on(t.endpoint), index("push_subscriptions_user").on(t.userId)],
);

export const notificationPreferences = sqliteTable("notification_preferences", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  bookingRequests: integer("booking_requests", { mode: "boolean" }).notNull().default(true),
  bookingConfirmations: integer("booking_confirmations", { mode: "boolean" }).notNull().default(true),
  messages: integer("messages", { mode: "boolean" }).notNull().default(true),
  reviews: integer("reviews", { mode: "boolean" }).notNull().default(true),
  activityUpdates: integer("activity_updates", { mode: "boolean" }).notNull().default(true),
  paymentNotifications: integer("payment_notifications", { mode: "boolean" }).notNull().default(true),
  reminders: integer("reminders", { mode: "boolean" }).notNull().default(true),
  marketingEmails: integer("marketing_emails", { mode: "boolean" }).notNull().default(false),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * authorize: the card is held; capture: charged; release: the hold is let go (never charged);
 * refund: a charge given back; platform_fee: what the platform keeps of a completed booking;
 * payout_pending: the host's share owed to them; transfer: that share sent to their payout
 * account; reverse: a transfer taken back.
 */
export type LedgerKind = "authorize" | "capture" | "release" | "refund" | "transfer" | "reverse" | "platform_fee" | "payout_pending";

/**
 * Every money movement, written in the same transaction as the booking status change it
 * belongs to. The idempotency key is derived from the booking and the action.
 */
export const ledgerEntries = sqliteTable(
  "ledger_entries",
  {
    id: text("id").primaryKey(),
    bookingId: text("booking_id")
      .notNull()
      .references(() => bookings.id),
    kind: text("kind").$type<LedgerKind>().notNull(),
    amountCents: integer("amount_cents").notNull(),
    currency: text("currency").notNull().default("usd"),
    provider: text("provider").notNull(),
    providerRef: text("provider_ref"),
    idempotencyKey: text("idempotency_key").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("ledger_idempotency").on(t.idempotencyKey), index("ledger_booking").on(t.bookingId)],
);

/**
 * A photo upload: made pending by POST /api/objects/upload (a short-lived signed URL), then
 * turned into a stored, re-encoded photo by PUT /api/profile-images or /api/activity-images.
 * `objectId` names the stored photo; only its uploader may attach it to a profile or activity.
 */
export const uploads = sqliteTable(
  "uploads",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    status: text("status").$type<"pending" | "receiving" | "received" | "processing" | "processed" | "failed">().notNull().default("pending"),
    objectId: text("object_id"),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("uploads_object").on(t.objectId), index("uploads_user").on(t.userId, t.createdAt)],
);

/**
 * Timed work that must survive restarts (answer windows, payouts, reminders, cleanup): one row
 * per job, run at least once when due by the app's job runner (src/jobs.ts). A row is
 * deleted once its job has run; `key` makes scheduling the same job twice a no-op.
 */
export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    /** Unique when set: the job's identity, such as "booking.expire:{bookingId}". */
    key: text("key"),
    payload: text("payload", { mode: "json" }).$type<unknown>().notNull().default(sql`'{}'`),
    runAt: integer("run_at", { mode: "number" }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** While a runner works on the job, until this instant; a crashed run is picked up after it. */
    leaseUntil: integer("lease_until", { mode: "number" }),
    lastError: text("last_error"),
    /** Set when the job gave up after its last attempt; such rows stay for the operator to read. */
    failedAt: integer("failed_at", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("jobs_key").on(t.key), index("jobs_due").on(t.failedAt, t.runAt)],
);

/**
 * Roles that one process at a time holds while several serve the same database, such as running
 * the durable jobs ("jobs"): the holder renews its row before `until`; once a holder stops renewing
 * (it stopped or crashed), another process takes the row over.
 */
export const leases = sqliteTable("leases", {
  name: text("name").primaryKey(),
  /** The holding process's random id, made when it starts. */
  holder: text("holder").notNull(),
  until: integer("until", { mode: "number" }).notNull(),
});

/**
 * Payment provider notifications already handled, by the provider's event id: a webhook delivered
 * again (providers retry, and may send the same event several times) is answered but not handled twice.
 */
export const paymentEvents = sqliteTable("payment_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  receivedAt: integer("received_at", { mode: "number" }).notNull(),
});

/**
 * What a guest chose on the date-time screen (spec "Booking selection"), kept on the server so a
 * reload, a second tab or another device shows the same choice. One per guest and activity;
 * `nonce` changes with every new choice and keys the payment made for it.
 */
export const bookingSelections = sqliteTable(
  "booking_selections",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    activityId: text("activity_id")
      .notNull()
      .references(() => activities.id, { onDelete: "cascade" }),
    /** YYYY-MM-DD and HH:00, wall clock in the activity's city. */
    date: text("date").notNull(),
    time: text("time").notNull(),
    durationMinutes: integer("duration_minutes").notNull(),
    nonce: text("nonce").notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.activityId] })],
);

/**
 * The built-in test payment provider keeps its state here (src/payments/test-provider.ts):
 * PaymentIntents, checkout sessions, payout accounts, and every money operation by its
 * idempotency key (captures, releases, refunds, transfers, reversals).
 */
export const testPaymentIntents = sqliteTable(
  "test_payment_intents",
  {
    id: text("id").primaryKey(),
    clientSecret: text("client_secret").notNull(),
    status: text("status").notNull(),
    amountCents: integer("amount_cents").notNull(),
    currency: text("currency").notNull(),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, string>>().notNull(),
    description: text("description"),
    lastError: text("last_error"),
    idempotencyKey: text("idempotency_key").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("test_payment_intents_key").on(t.idempotencyKey), uniqueIndex("test_payment_intents_secret").on(t.clientSecret)],
);

export const testPaymentOperations = sqliteTable(
  "test_payment_operations",
  {
    id: text("id").primaryKey(),
    kind: text("kind").$type<"capture" | "release" | "refund" | "transfer" | "reverse">().notNull(),
    /** The intent (capture, release, refund) or transfer (reverse) it acts on. */
    target: text("target").notNull(),
    amountCents: integer("amount_cents").notNull(),
    /** Transfers: the payout account. */
    destination: text("destination"),
    /** Transfers: the transfer group they were made with (Stripe's `transfer_group`). */
    transferGroup: text("transfer_group"),
    idempotencyKey: text("idempotency_key").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("test_payment_operations_key").on(t.idempotencyKey),
    index("test_payment_operations_target").on(t.target),
    index("test_payment_operations_group").on(t.transferGroup),
  ],
);

export const testCheckoutSessions = sqliteTable(
  "test_checkout_sessions",
  {
    id: text("id").primaryKey(),
    paymentIntentId: text("payment_intent_id").notNull(),
    status: text("status").$type<"open" | "complete" | "expired">().notNull().default("open"),
    description: text("description").notNull(),
    successUrl: text("success_url").notNull(),
    cancelUrl: text("cancel_url").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("test_checkout_sessions_key").on(t.idempotencyKey)],
);

export const testConnectedAccounts = sqliteTable(
  "test_connected_accounts",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    email: text("email"),
    payoutsEnabled: integer("payouts_enabled", { mode: "boolean" }).notNull().default(false),
    idempotencyKey: text("idempotency_key").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("test_connected_accounts_key").on(t.idempotencyKey)],
);

export type User = typeof users.$inferSelect;
export type Activity = typeof activities.$inferSelect;
export type Booking = typeof bookings.$inferSelect;
export type LedgerEntry = typeof ledgerEntries.$inferSelect;
export type BookingSelection = typeof bookingSelections.$inferSelect;
export type Job = typeof jobs.$inferSelect;
export type EmailToken = typeof emailTokens.$inferSelect;
export type Review = typeof reviews.$inferSelect;
export type Report = typeof reports.$inferSelect;
export type HostBlock = typeof hostBlocks.$inferSelect;
