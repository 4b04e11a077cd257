/**
 * Texts every email shares (the layout's footer lines); each feature keeps its own emails'
 * texts in its own catalogue. Assembled into the catalogue by `src/texts.ts`.
 */
export const en = {
  "email.footer.account": "You get this email because it concerns your Offline account.",
  "email.footer.notification": "You get this email because of your notification settings on Offline.",
  "email.unsubscribe": "Unsubscribe from these emails",
} as const;

export const fr: Record<keyof typeof en, string> = {
  "email.footer.account": "Vous recevez cet e-mail car il concerne votre compte Offline.",
  "email.footer.notification": "Vous recevez cet e-mail en raison de vos paramètres de notification sur Offline.",
  "email.unsubscribe": "Se désabonner de ces e-mails",
};
