/**
 * A copy of a person's data (docs/decisions/0056): the Settings card, the emailed link's page
 * and the email itself.
 */
export const en = {
  "dataExport.title": "Your data",
  "dataExport.intro": "Download a copy of everything Offline holds about you: your profile, activities, bookings and payments, messages, reviews, settings and the emails we keep for you, with your photos.",
  "dataExport.download": "Download my data",
  "dataExport.preparing": "We are preparing your copy and will email you a link.",
  "dataExport.preparingTitle": "Preparing your copy",
  "dataExport.ready": "We emailed you a link to your copy. It works once, until {date}.",
  "dataExport.tooMany": "You have asked for your data many times in a short while. Please try again in {minutes, plural, one {# minute} other {# minutes}}.",
  "dataExport.linkTitle": "Your copy of your data",
  "dataExport.linkBody": "Your copy is ready. The link works once: after you download the file, it stops working.",
  "dataExport.linkAction": "Download the file",
  "dataExport.linkExpires": "Available until {date}.",
  "dataExport.linkGoneTitle": "This link no longer works",
  "dataExport.linkGone": "A link to your data works once, for a day. Ask for a new copy from Settings.",
  "dataExport.backToSettings": "Go to Settings",
  "dataExport.email.subject": "Your copy of your Offline data is ready",
  "dataExport.email.heading": "Your data is ready to download",
  "dataExport.email.body": "You asked for a copy of the data Offline holds about you. It is ready.",
  "dataExport.email.action": "Download my data",
  "dataExport.email.after": "The link works once, until {date}. If you did not ask for it, change your password: someone else may be signed in to your account.",
} as const;

export const fr: Record<keyof typeof en, string> = {
  "dataExport.title": "Vos données",
  "dataExport.intro": "Téléchargez une copie de tout ce qu'Offline conserve sur vous : profil, activités, réservations et paiements, messages, avis, réglages et les e-mails que nous conservons pour vous, avec vos photos.",
  "dataExport.download": "Télécharger mes données",
  "dataExport.preparing": "Nous préparons votre copie et vous enverrons un lien par e-mail.",
  "dataExport.preparingTitle": "Copie en préparation",
  "dataExport.ready": "Nous vous avons envoyé par e-mail un lien vers votre copie. Il fonctionne une fois, jusqu'au {date}.",
  "dataExport.tooMany": "Vous avez demandé vos données de nombreuses fois en peu de temps. Réessayez dans {minutes, plural, one {# minute} other {# minutes}}.",
  "dataExport.linkTitle": "La copie de vos données",
  "dataExport.linkBody": "Votre copie est prête. Le lien fonctionne une fois : après le téléchargement du fichier, il ne fonctionne plus.",
  "dataExport.linkAction": "Télécharger le fichier",
  "dataExport.linkExpires": "Disponible jusqu'au {date}.",
  "dataExport.linkGoneTitle": "Ce lien ne fonctionne plus",
  "dataExport.linkGone": "Un lien vers vos données fonctionne une fois, pendant une journée. Demandez une nouvelle copie depuis les Paramètres.",
  "dataExport.backToSettings": "Aller aux Paramètres",
  "dataExport.email.subject": "La copie de vos données Offline est prête",
  "dataExport.email.heading": "Vos données sont prêtes à être téléchargées",
  "dataExport.email.body": "Vous avez demandé une copie des données qu'Offline conserve sur vous. Elle est prête.",
  "dataExport.email.action": "Télécharger mes données",
  "dataExport.email.after": "Le lien fonctionne une fois, jusqu'au {date}. Si vous ne l'avez pas demandé, changez votre mot de passe : quelqu'un d'autre est peut-être connecté à votre compte.",
};
