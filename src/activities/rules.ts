import type { Activity } from "../../db/schema";

/**
 * The meeting point as a full address, when the host has set it (it is on the activity's page
 * for anyone), with the city and country; null when the host shares it in the conversation. The
 * booking emails and the calendar feeds both say it this way.
 */
export function meetingPointText(activity: Pick<Activity, "hasMeetingPoint" | "meetingPoint" | "city" | "country">): string | null {
  if (!activity.hasMeetingPoint || !activity.meetingPoint) return null;
  return `${activity.meetingPoint}, ${activity.city}, ${activity.country}`;
}
