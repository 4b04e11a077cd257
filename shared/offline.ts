/**
 * What the server tells the service worker (islands/worker/sw.ts) about a page, beside whose it
 * is: `X-Offline-Keep: saved` on an activity page the viewer saved, which the worker keeps for
 * reading offline as long as it stays saved (docs/decisions/0055).
 */
export const OFFLINE_KEEP_HEADER = "X-Offline-Keep";
