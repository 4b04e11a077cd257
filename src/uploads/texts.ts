/**
 * Photo upload texts.
 * English is the default; `fr` is typed against `en`, so a French key missing or extra fails
 * type-checking. Assembled into the catalogue by `src/texts.ts`.
 */
export const en = {
  "upload.failed": "Error uploading image",
  "upload.processingFailed": "Error processing image",
  "upload.notImage": "This file is not a supported image. Use a JPEG, PNG, WebP, GIF or AVIF photo.",
  "upload.tooLarge": "This image is too large: 10 MB at most.",
  "upload.tooManyPixels": "This image has too many pixels: 40 megapixels at most.",
  "upload.invalid": "This upload link is not valid. Please try again.",
  "upload.expired": "This upload link has expired. Please try again.",
  "upload.tooMany": "You have sent many photos in the last hour. Please wait {minutes, plural, one {# minute} other {# minutes}} and try again.",
  "upload.inProgress": "This photo is already being processed.",
  "upload.used": "This upload was already used. Please choose the photo again.",
} as const;

export const fr: Record<keyof typeof en, string> = {
  "upload.failed": "Erreur lors de l'upload de l'image",
  "upload.processingFailed": "Erreur lors du traitement de l'image",
  "upload.notImage": "Ce fichier n'est pas une image prise en charge. Utilisez une photo JPEG, PNG, WebP, GIF ou AVIF.",
  "upload.tooLarge": "Cette image est trop lourde : 10 Mo au maximum.",
  "upload.tooManyPixels": "Cette image a trop de pixels : 40 mégapixels au maximum.",
  "upload.invalid": "Ce lien d'envoi n'est pas valide. Veuillez réessayer.",
  "upload.expired": "Ce lien d'envoi a expiré. Veuillez réessayer.",
  "upload.tooMany": "Vous avez envoyé beaucoup de photos depuis une heure. Patientez {minutes, plural, one {# minute} other {# minutes}} puis réessayez.",
  "upload.inProgress": "Cette photo est déjà en cours de traitement.",
  "upload.used": "Cet envoi a déjà servi. Veuillez choisir la photo à nouveau.",
};
