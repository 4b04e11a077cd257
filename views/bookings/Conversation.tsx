import type { ChatProps } from "../../shared/chat";
import { ReportButton } from "../reports/ReportButton";
import type { Booking, BookingRefund } from "../../db/schema";
import { categoryPhoto } from "../../src/activities/categories";
import type { Role } from "../../src/bookings/service";
import type { CancellationQuote } from "../../src/bookings/policies";
import type { MessageRow } from "../../src/events";
import { nameAndAge, ratingLabel } from "../../lib/labels";
import { formatMoney } from "../../lib/money";
import { formatLocal, localOf } from "../../lib/time";
import { choiceLabel } from "../../src/profiles/about";
import type { ParticipantUser } from "../../src/profiles/serialize";
import type { View } from "../../src/shell/view";
import { photoUrl } from "../../src/uploads/service";
import { Icon } from "../components/icons";
import { FieldError, FormAlert, TextField } from "../components/Fields";
import { MAX_REFUND_REASON } from "../../shared/limits";
import { Island } from "../components/Island";
import { Avatar, ChipSection, isDeletedPerson, shownName } from "../components/People";
import { Document } from "../layouts/Document";
import { ActionButton, StatusBadge } from "./List";
import { MessageForm, MessageList } from "./Messages";
import { formatDeadline, formatHour, formatLongDate, hoursText } from "./Parts";

/** The profile sheet shows this many photos at most (spec §9). */
const SHEET_PHOTOS = 9;

export interface ConversationData {
  booking: Booking;
  role: Role;
  activity: { id: string; title: string; photos: string[]; category: string };
  other: ParticipantUser;
  /** The other person's real numbers: listed activities, and the rating of the reviews they received. */
  otherStats: { activities: number; rating: number | null; reviews: number };
  messages: MessageRow[];
  /** How far the other side has read (they read every message up to this instant). */
  seenUpTo: number | null;
  chat: ChatProps;
  /** What the guest would get back by cancelling now, by the booking's policy (docs/decisions/0050). */
  cancelQuote: CancellationQuote;
  /** Completed, and this side has not reviewed the other yet while the 14 days last. */
  canReview: boolean;
  now: number;
  /** A message the form sent that was refused, shown again with why. */
  draft?: string;
  error?: string;
  /** The parts of the payment given back so far, oldest first (docs/decisions/0051). */
  refunds: BookingRefund[];
  /** The host's share was already sent: a refund takes their part back from it. */
  paidOut: boolean;
  /** A refund the host's form sent that was refused: what was typed, and why. */
  refundForm?: { amount: string; reason: string; message?: string; fields: Record<string, string> };
}

/** The other person, as the profile button opens them: a bottom sheet made of a details element, so it works without script. */
function ProfileSheet({ view, data }: { view: View; data: ConversationData }) {
  const { t } = view;
  const p = data.other;
  const name = shownName(view, p.firstName);
  const place = [p.city, p.country].filter(Boolean).join(", ");
  const photos = p.photos.slice(0, SHEET_PHOTOS);
  return (
    <details class="profile-sheet shrink-0">
      <summary class="btn-icon cursor-pointer" aria-label={t("conversation.profile", { name })}>
        <Icon name="user" class="w-5 h-5" />
      </summary>
      <section class="profile-sheet-panel" aria-labelledby="profile-sheet-title" data-profile-sheet>
        <span class="mx-auto mb-4 block h-1.5 w-10 rounded-full bg-line" aria-hidden="true" />
        <div class="flex items-center gap-4">
          <Avatar photo={p.photo} name={p.firstName} size={72} />
          <div class="min-w-0">
            <h2 id="profile-sheet-title" class="text-xl font-bold" safe>
              {nameAndAge(p.firstName, p.age)}
            </h2>
            {place ? (
              <p class="text-sm text-muted" safe>
                {place}
              </p>
            ) : (
              ""
            )}
            <p class="text-sm text-muted" safe>
              {t("profile.memberSince", { year: p.memberSince })}
            </p>
          </div>
        </div>
        <dl class="mt-4 grid grid-cols-2 gap-2 text-center">
          <div class="card p-3">
            <dt class="text-sm text-muted" safe>
              {t("profile.activities")}
            </dt>
            <dd class="ml-0 text-lg font-semibold" data-activity-count safe>
              {String(data.otherStats.activities)}
            </dd>
          </div>
          <div class="card p-3">
            <dt class="text-sm text-muted" safe>
              {t("conversation.rating")}
            </dt>
            <dd class="ml-0 text-lg font-semibold" data-rating safe>
              {ratingLabel(view, data.otherStats.rating, data.otherStats.rating === null ? undefined : data.otherStats.reviews)}
            </dd>
          </div>
        </dl>
        {p.bio ? (
          <p class="mt-4 whitespace-pre-line" safe>
            {p.bio}
          </p>
        ) : (
          ""
        )}
        <ChipSection title={t("profile.interests")} items={p.interests} level={3} />
        <ChipSection title={t("profile.languages")} items={p.languages.map((l) => choiceLabel(l, t))} level={3} />
        {photos.length ? (
          <section class="mt-5">
            <h3 class="mb-2 font-semibold" safe>
              {t("conversation.photos")}
            </h3>
            <ul class="grid grid-cols-3 gap-2">
              {photos.map((photo, i) => (
                <li>
                  <img src={photoUrl(photo, "thumb")!} alt={t("common.photoOf", { n: i + 1, total: photos.length })} class="aspect-square w-full rounded-xl object-cover" loading="lazy" />
                </li>
              ))}
            </ul>
          </section>
        ) : (
          ""
        )}
        <ReportButton view={view} targetUserId={data.other.id} />
      </section>
    </details>
  );
}

/** What was booked: the activity, its date and time in the activity's zone, how long, and the price. */
function BookingCard({ view, data }: { view: View; data: ConversationData }) {
  const { t } = view;
  const b = data.booking;
  const [date = "", time = ""] = b.startsAtLocal.split("T");
  const photo = photoUrl(data.activity.photos[0] ?? categoryPhoto(data.activity.category), "thumb")!;
  const row = (label: string, value: string) => (
    <div class="flex justify-between gap-3 py-1">
      <dt class="text-muted" safe>
        {label}
      </dt>
      <dd class="text-right font-medium" safe>
        {value}
      </dd>
    </div>
  );
  return (
    <section class="card p-3" aria-labelledby="booking-card-title" data-booking-card>
      <div class="flex gap-3">
        <img src={photo} alt="" width="56" height="56" class="h-14 w-14 shrink-0 rounded-lg object-cover" />
        <div class="min-w-0 flex-1">
          <div class="flex items-start justify-between gap-2">
            <h2 id="booking-card-title" class="font-semibold leading-snug" safe>
              {data.activity.title}
            </h2>
            <StatusBadge view={view} status={b.status} />
          </div>
          <a href={`/activity/${data.activity.id}`} class="link inline-flex min-h-11 items-center text-sm" safe>
            {t("conversation.viewActivity")}
          </a>
        </div>
      </div>
      <dl class="mt-2 text-sm">
        {row(t("booking.date"), formatLongDate(view, date))}
        {row(t("booking.time"), formatHour(view, time.slice(0, 5)))}
        {row(t("booking.duration"), hoursText(view, b.durationMinutes))}
        {/* A group booking (docs/decisions/0049): its spots, and whether it takes the session whole. */}
        {b.pricePerPersonCents !== null ? row(t("booking.spots"), b.privateGroup ? `${t("booking.spotsCount", { n: b.spots })} · ${t("booking.privateGroupBadge")}` : t("booking.spotsCount", { n: b.spots })) : ""}
        {/* The host sees what the guest pays and what they earn, labelled as on the dashboard's requests. */}
        {row(t(data.role === "host" ? "conversation.guestPays" : "conversation.price"), formatMoney(b.totalCents, view.locale, { currency: b.currency }))}
        {data.role === "host" ? row(t("conversation.yourEarnings"), formatMoney(b.hostEarningsCents, view.locale, { currency: b.currency })) : ""}
      </dl>
    </section>
  );
}

/** What this side can do now, as the spec's cards: answer a request, withdraw, cancel with the policy, complete, review. */
function ActionCards({ view, data }: { view: View; data: ConversationData }) {
  const { t } = view;
  const b = data.booking;
  const name = shownName(view, data.other.firstName);
  const here = `/bookings/${b.id}`;
  const zoned = (ms: number) => formatLocal(localOf(ms, b.timeZone), view.locale);
  const note = (text: string) => (
    <p class="text-sm text-muted" safe>
      {text}
    </p>
  );
  if (data.role === "host" && b.status === "pending") {
    return (
      <section class="card border-brand-500 p-4" aria-labelledby="request-title" data-request-card>
        <h2 id="request-title" class="font-semibold" safe>
          {t("conversation.requestTitle", { name })}
        </h2>
        {b.message ? (
          <blockquote class="mx-0 mt-2 whitespace-pre-line rounded-xl bg-sunken px-3 py-2 text-sm" aria-label={t("conversation.requestMessage")} safe>
            {b.message}
          </blockquote>
        ) : (
          ""
        )}
        <div class="mt-2">{note(t("conversation.requestBody", { time: zoned(b.respondBy) }))}</div>
        <div class="mt-3 flex gap-2">
          <ActionButton view={view} bookingId={b.id} action="reject" label={t("bookings.decline")} next={here} />
          <ActionButton view={view} bookingId={b.id} action="accept" label={t("bookings.accept")} next={here} primary />
        </div>
      </section>
    );
  }
  if (data.role === "guest" && b.status === "pending") {
    return (
      <section class="card p-4" data-withdraw-card>
        {note(t("conversation.pendingGuest", { name }))}
        <div class="mt-3 flex">
          <ActionButton view={view} bookingId={b.id} action="cancel" label={t("bookings.withdraw")} next={here} />
        </div>
      </section>
    );
  }
  if (data.role === "guest" && b.status === "awaiting_payment") {
    return (
      <section class="card p-4">
        {note(t("conversation.payToSend"))}
        <a href={`/checkout/${b.id}`} class="btn btn-primary mt-3 w-full" safe>
          {t("bookings.completePayment")}
        </a>
      </section>
    );
  }
  if (b.status === "accepted") {
    if (data.role === "guest") {
      // Until the start the guest may cancel, getting back what the policy gives now; the button
      // opens the page that says how much and asks to confirm (works without JavaScript).
      const open = data.now < b.startsAt;
      const q = data.cancelQuote;
      const deadline = q.deadline === null ? "" : formatDeadline(view, q.deadline, b.timeZone);
      const text = !open ? t("conversation.cancelClosed") : q.share === "full" ? t("conversation.cancelPolicy", { deadline }) : q.share === "half" ? t("conversation.cancelHalf", { deadline }) : t("conversation.cancelNothing");
      return (
        <section class="card p-4" data-cancel-card>
          {note(text)}
          {open ? (
            <div class="mt-3 flex">
              <a href={`/bookings/${b.id}/cancel`} class="btn btn-secondary w-full" data-action="cancel" safe>
                {t("bookings.cancel")}
              </a>
            </div>
          ) : (
            ""
          )}
        </section>
      );
    }
    if (b.startsAt <= data.now) {
      return (
        <section class="card p-4" data-complete-card>
          {note(t("conversation.completeHint"))}
          <div class="mt-3 flex">
            <ActionButton view={view} bookingId={b.id} action="complete" label={t("bookings.complete")} next={here} primary />
          </div>
        </section>
      );
    }
    return (
      <section class="card p-4" data-cancel-card>
        {note(t("conversation.hostCancelPolicy"))}
        <div class="mt-3 flex">
          <ActionButton view={view} bookingId={b.id} action="cancel" label={t("bookings.cancel")} next={here} />
        </div>
      </section>
    );
  }
  if (b.status === "completed" && data.canReview) {
    return (
      <section class="card p-4" data-review-card>
        {note(t("conversation.reviewPrompt", { name }))}
        <a href={`/review?bookingId=${b.id}&userType=${data.role}`} class="btn btn-primary mt-3 w-full" safe>
          {t("conversation.leaveReview")}
        </a>
      </section>
    );
  }
  return "";
}

/**
 * The parts of the payment given back, for both sides, and the host's form to give back more
 * (docs/decisions/0051): a plain form post that works without JavaScript, its errors beside its
 * fields. Shown to the host of an accepted or completed booking while something remains to refund.
 */
function RefundsCard({ view, data }: { view: View; data: ConversationData }) {
  const { t } = view;
  const b = data.booking;
  const money = (cents: number) => formatMoney(cents, view.locale, { currency: b.currency });
  const remaining = b.totalCents - b.refundedCents;
  const canRefund = data.role === "host" && (b.status === "accepted" || b.status === "completed") && remaining > 0;
  if (!canRefund && data.refunds.length === 0) return "";
  const form = data.refundForm;
  return (
    <section class="card mt-3 p-4" aria-labelledby="refunds-title" data-refunds-card>
      <h2 id="refunds-title" class="font-semibold" safe>
        {canRefund ? t("refunds.title") : t("refunds.listTitle")}
      </h2>
      {data.refunds.length ? (
        <>
          <p class="mt-1 text-sm text-muted" data-refunded safe>
            {t("refunds.total", { amount: money(b.refundedCents), paid: money(b.totalCents) })}
          </p>
          <ul class="mt-2 flex flex-col gap-2" aria-label={t("refunds.listTitle")}>
            {data.refunds.map((r) => (
              <li class="rounded-xl bg-sunken px-3 py-2 text-sm" data-refund={r.id}>
                <p class="font-medium" safe>
                  {t("refunds.item", { amount: money(r.amountCents), date: formatLocal(localOf(r.createdAt, b.timeZone), view.locale) })}
                </p>
                {r.reason ? (
                  <p class="whitespace-pre-wrap break-words text-muted" safe>
                    {t("system.refundReason", { reason: r.reason })}
                  </p>
                ) : (
                  ""
                )}
              </li>
            ))}
          </ul>
        </>
      ) : (
        ""
      )}
      {canRefund ? (
        <form method="post" action={`/bookings/${b.id}/refunds`} class="mt-3 flex flex-col gap-3" novalidate data-refund-form>
          <input type="hidden" name="_csrf" value={view.csrf} />
          <p class="text-sm text-muted" safe>
            {t("refunds.intro", { remaining: money(remaining) })}
          </p>
          {data.paidOut ? (
            <p class="text-sm text-muted" safe>
              {t("refunds.afterPayout")}
            </p>
          ) : (
            ""
          )}
          <FormAlert body={form?.message} focus={!!form?.message} />
          <TextField
            name="amount"
            label={t("refunds.amount", { currency: b.currency.toUpperCase() })}
            value={form?.amount ?? ""}
            error={form?.fields.amount}
            hint={t("refunds.amountHint", { remaining: money(remaining) })}
            required
            maxlength={32}
            attrs={{ inputmode: "decimal", autocomplete: "off" }}
          />
          <div class="field">
            <label class="field-label" for="field-reason" safe>
              {t("refunds.reason")}
            </label>
            <textarea
              id="field-reason"
              name="reason"
              class="input min-h-20"
              required
              maxlength={String(MAX_REFUND_REASON)}
              aria-invalid={form?.fields.reason ? "true" : undefined}
              aria-describedby={form?.fields.reason ? "field-reason-error" : undefined}
              safe
            >
              {form?.reason ?? ""}
            </textarea>
            <FieldError id="field-reason-error" message={form?.fields.reason} />
          </div>
          <button type="submit" class="btn btn-secondary w-full" data-busy-text={t("booking.processing")} safe>
            {t("refunds.submit")}
          </button>
        </form>
      ) : (
        ""
      )}
    </section>
  );
}

/**
 * The booking and action cards. The region asks the page again for itself when the chat island
 * says the booking's status changed (`offline:booking-status`), so the cards follow an accept, a
 * decline or a completion made elsewhere without a reload.
 */
function ConversationCards({ view, data }: { view: View; data: ConversationData }) {
  const url = `/bookings/${data.booking.id}`;
  return (
    <div
      id="conversation-cards"
      class="flex flex-col gap-3"
      hx-get={url}
      hx-trigger="offline:booking-status from:body"
      hx-select="#conversation-cards"
      hx-target="this"
      hx-swap="outerHTML"
    >
      <BookingCard view={view} data={data} />
      <ActionCards view={view} data={data} />
    </div>
  );
}

/**
 * /bookings/{id}: the conversation of one booking, full screen (its own address, so it can be
 * linked and opened from a notification). Header with the other person and their profile, the
 * booking's cards, then the chat: the island when JavaScript runs, the plain list and form
 * otherwise.
 */
export function ConversationScreen({ view, data }: { view: View; data: ConversationData }) {
  const { t } = view;
  const name = shownName(view, data.other.firstName);
  return (
    <Document view={view} title={`${name} · ${data.activity.title}`}>
      <div class="mx-auto flex min-h-screen max-w-screen-md flex-col">
        <header class="sticky top-0 z-30 flex min-h-14 items-center gap-2 border-b border-line bg-surface px-2 py-2">
          <a href="/bookings" class="btn-icon" aria-label={t("conversation.back")}>
            <Icon name="arrowLeft" class="w-5 h-5" />
          </a>
          <Avatar photo={data.other.photo} name={data.other.firstName} size={36} />
          <div class="min-w-0 flex-1">
            <h1 class="truncate font-semibold leading-tight" safe>
              {name}
            </h1>
            <p class="truncate text-sm text-muted" safe>
              {data.activity.title}
            </p>
          </div>
          {/* A deleted person has no profile to open (docs/decisions/0057). */}
          {isDeletedPerson(data.other) ? "" : <ProfileSheet view={view} data={data} />}
        </header>
        <main id="main" class="flex flex-1 flex-col px-4 pt-4">
          <ConversationCards view={view} data={data} />
          {/* Its own region: the status cards above are drawn again on a status change, a refund never changes the status. */}
          <RefundsCard view={view} data={data} />
          <Island name="Chat" props={data.chat as unknown as Record<string, unknown>} class="flex flex-1 flex-col">
            <>
              <div class="flex-1">
                <MessageList
                  view={view}
                  messages={data.messages}
                  viewerId={data.chat.viewerId}
                  systemTexts={data.chat.systemTexts}
                  timeZone={data.chat.timeZone}
                  now={data.now}
                  seenUpTo={data.seenUpTo}
                />
              </div>
              <MessageForm view={view} bookingId={data.booking.id} status={data.booking.status} draft={data.draft} error={data.error} />
            </>
          </Island>
        </main>
      </div>
    </Document>
  );
}
