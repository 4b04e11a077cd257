import { writeTransaction } from "../../db/client";
import { and, asc, eq, gt } from "drizzle-orm";
import { hostBlocks, type HostBlock, type User } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError, invalidField } from "../../lib/domain-error";
import { zoneOfCity } from "../../lib/places";
import { cleanText, hasDisallowedCharacters } from "../../lib/text";
import { parseDate, zonedAt } from "../../lib/time";
import { uuidLike } from "../../lib/validation";
import { parseMinute } from "../../shared/availability";
import type { BlockInput } from "./input";
import { MAX_BLOCK_DAYS, MAX_BLOCKS } from "../../shared/limits";

/**
 * A host's days off and blocked times (docs/decisions/0037): given in the wall clock of the
 * host's city, kept as UTC instants, holding the host's time for all their activities.
 */

/** The zone a host's blocks are read in: their city's, UTC when they have none. */
export const hostZone = (host: Pick<User, "city">) => zoneOfCity(host.city);

/** The start of a local date-time in a zone; a time the clocks skip moves forward, as a calendar does. */
const instant = (date: Temporal.PlainDate, minute: number, zone: string) =>
  (minute >= 24 * 60 ? date.add({ days: 1 }).toPlainDateTime() : date.toPlainDateTime({ hour: Math.floor(minute / 60), minute: minute % 60 })).toZonedDateTime(zone, { disambiguation: "compatible" })
    .epochMilliseconds;

/** Reads the form into instants, or refuses with the field's message (`invalidField`). */
export function readBlock(input: BlockInput, zone: string, now: number) {
  const date = parseDate(input.date);
  if (!date) throw invalidField("date", "availability.dateInvalid");
  const today = zonedAt(now, zone).toPlainDate();
  const note = cleanText(input.note ?? "", "multiline") || null;
  if (note && hasDisallowedCharacters(note, "multiline")) throw new DomainError("availability.noteCharacters", 400);
  if (input.kind === "day") {
    const end = input.endDate ? parseDate(input.endDate) : date;
    if (!end) throw invalidField("endDate", "availability.dateInvalid");
    if (Temporal.PlainDate.compare(end, date) < 0) throw invalidField("endDate", "availability.endDateBefore");
    if (Temporal.PlainDate.compare(end, today) < 0) throw new DomainError("availability.blockPast", 400);
    if (date.until(end).days >= MAX_BLOCK_DAYS) throw new DomainError("availability.blockTooLong", 400, { params: { days: MAX_BLOCK_DAYS } });
    return { startsAt: instant(date, 0, zone), endsAt: instant(end, 24 * 60, zone), allDay: true, note };
  }
  const from = parseMinute(input.from ?? "");
  const to = parseMinute(input.to ?? "");
  if (from === null) throw invalidField("from", "availability.timeInvalid");
  if (to === null) throw invalidField("to", "availability.timeInvalid");
  if (to <= from) throw invalidField("to", "availability.endBeforeStart");
  const endsAt = instant(date, to, zone);
  if (endsAt <= now) throw new DomainError("availability.blockPast", 400);
  return { startsAt: instant(date, from, zone), endsAt, allDay: false, note };
}

/** Adds a day off or a blocked time for the host. */
export async function addBlock(deps: Deps, host: User, input: BlockInput): Promise<HostBlock> {
  const zone = hostZone(host);
  const now = deps.now();
  const read = readBlock(input, zone, now);
  if ((await upcomingBlocks(deps, host.id)).length >= MAX_BLOCKS) throw new DomainError("availability.tooManyBlocks", 400, { params: { count: MAX_BLOCKS } });
  const row = { id: crypto.randomUUID(), hostId: host.id, timeZone: zone, ...read, createdAt: now };
  await writeTransaction(deps.db, (tx) => tx.insert(hostBlocks).values(row));
  return row;
}

/** Removes one of the host's own blocks; anyone else's id is not found. */
export async function removeBlock(deps: Deps, hostId: string, blockId: string) {
  if (!uuidLike(blockId)) throw new DomainError("availability.blockNotFound", 404);
  const removed = await writeTransaction(deps.db, (tx) => tx.delete(hostBlocks).where(and(eq(hostBlocks.id, blockId), eq(hostBlocks.hostId, hostId))).returning({ id: hostBlocks.id }));
  if (!removed.length) throw new DomainError("availability.blockNotFound", 404);
}

/** The host's blocks that have not ended, soonest first. */
export async function upcomingBlocks(deps: Deps, hostId: string): Promise<HostBlock[]> {
  return await deps.db
    .select()
    .from(hostBlocks)
    .where(and(eq(hostBlocks.hostId, hostId), gt(hostBlocks.endsAt, deps.now())))
    .orderBy(asc(hostBlocks.startsAt));
}
