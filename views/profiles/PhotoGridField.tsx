import { photoUrl } from "../../src/uploads/service";
import type { View } from "../../src/shell/view";

export function photoGridTexts(view: View) {
  const { t } = view;
  return {
    main: t("photos.main"),
    add: t("photos.add"),
    remove: t("photos.remove"),
    moveEarlier: t("photos.moveEarlier"),
    moveLater: t("photos.moveLater"),
    uploading: t("photos.uploading"),
    moved: t("photos.moved"),
    errorTitle: t("common.errorTitle"),
    uploadFailed: t("upload.failed"),
    hint: t("photos.hint"),
  };
}

/**
 * What the photo grid shows before its script runs: the photos, kept by a hidden input. It is
 * laid out as the island (islands/PhotoGrid.tsx) lays itself out, hint line included, so nothing
 * moves when the island replaces it; empty places are the island's dashed outlines on the page's
 * own background, not filled tiles that look like photos missing.
 */
export function PhotoGridFallback({ view, name, photos, hint }: { view: View; name: string; photos: string[]; hint?: string }) {
  return (
    <>
      <input type="hidden" name={name} value={JSON.stringify(photos)} data-list-required="" />
      <p class="mb-2 text-sm text-muted" safe>
        {hint ?? view.t("photos.hint")}
      </p>
      <ul class="grid grid-cols-3 gap-2">
        {Array.from({ length: 6 }, (_, i) => (
          <li class={`aspect-square overflow-hidden rounded-xl ${photos[i] ? "bg-sunken" : "border-2 border-dashed border-line"}`}>
            {photos[i] ? <img src={photoUrl(photos[i], "thumb")!} alt={i === 0 ? view.t("photos.main") : ""} class="h-full w-full object-cover" /> : ""}
          </li>
        ))}
      </ul>
    </>
  );
}
