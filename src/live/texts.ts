/**
 * Texts of the live channel (`/ws`): the answers to frames it refuses.
 * English is the default; `fr` is typed against `en`. Assembled into the catalogue by `src/texts.ts`.
 */
export const en = {
  "live.badFrame": "This message could not be understood.",
  "live.notFound": "Conversation not found",
  "live.notSubscribed": "Open this conversation first.",
  "live.tooManySubscriptions": "Too many conversations are open on this connection.",
};

export const fr: typeof en = {
  "live.badFrame": "Ce message n'a pas pu être compris.",
  "live.notFound": "Conversation introuvable",
  "live.notSubscribed": "Ouvrez d'abord cette conversation.",
  "live.tooManySubscriptions": "Trop de conversations sont ouvertes sur cette connexion.",
};
