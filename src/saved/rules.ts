/**
 * The rules of saved activities (docs/decisions/0055): how many one person may keep. A list is
 * read whole (the Saved page, `GET /api/saved`) and every saved activity's page may be kept by the
 * service worker, so the list has a bound; far above what anyone keeps to come back to.
 */
export const MAX_SAVED = 500;
