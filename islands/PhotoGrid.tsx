/** @jsxImportSource react */
import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from "react";
import { photoSrc, toast, uploadPhoto } from "./api";
import { mountWith } from "./mount";

export interface PhotoGridProps {
  /** Name of the hidden form input that carries the photo list as JSON. */
  name: string;
  photos: string[];
  max: number;
  /** PUT endpoint that turns an upload into a photo: /api/profile-images or /api/activity-images. */
  endpoint: string;
  texts: {
    main: string;
    add: string;
    remove: string;
    moveEarlier: string;
    moveLater: string;
    uploading: string;
    moved: string;
    errorTitle: string;
    uploadFailed: string;
    hint: string;
  };
  /** For a parent island (the wizard); forms read the hidden input instead. */
  onChange?: (photos: string[]) => void;
}

/** A photo's buttons: a 44 px target, its visible disc 28 px, dimmed while it cannot act. */
const CORNER_BUTTON = "flex h-11 w-11 items-center justify-center text-white disabled:opacity-30";
const DISC = "flex h-7 w-7 items-center justify-center rounded-full bg-black/60";

const fill = (text: string, values: Record<string, string | number>) => text.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k] ?? ""));

/**
 * Up to six photos in a 3-column grid; the first is the main one. Photos are reordered by
 * dragging or with the move buttons (keyboard), removed, and uploaded one per empty slot.
 */
export function PhotoGrid({ name, photos: initial, max, endpoint, texts, onChange }: PhotoGridProps) {
  const [photos, setPhotos] = useState<string[]>(initial.slice(0, max));
  const [busy, setBusy] = useState<number | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const dragFrom = useRef<number | null>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    // Tell the surrounding form its value changed (it enables its submit button on this).
    input.current?.dispatchEvent(new Event("input", { bubbles: true }));
    onChange?.(photos);
  }, [photos]);

  const move = (from: number, to: number) => {
    if (to < 0 || to >= photos.length || from === to) return;
    const next = [...photos];
    const [item] = next.splice(from, 1);
    next.splice(to, 0, item!);
    setPhotos(next);
    setAnnouncement(fill(texts.moved, { position: to + 1 }));
    requestAnimationFrame(() => document.getElementById(`${name}-photo-${to}`)?.focus());
  };

  const upload = async (file: File | undefined, slot: number) => {
    if (!file) return;
    setBusy(slot);
    try {
      const path = await uploadPhoto(file, endpoint);
      setPhotos((current) => [...current, path].slice(0, max));
    } catch (err) {
      toast(texts.errorTitle, err instanceof Error && err.message ? err.message : texts.uploadFailed);
    } finally {
      setBusy(null);
    }
  };

  const onKey = (event: KeyboardEvent, index: number) => {
    if (event.key === "ArrowLeft" || event.key === "ArrowUp") {
      event.preventDefault();
      move(index, index - 1);
    } else if (event.key === "ArrowRight" || event.key === "ArrowDown") {
      event.preventDefault();
      move(index, index + 1);
    } else if (event.key === "Delete" || event.key === "Backspace") {
      event.preventDefault();
      setPhotos(photos.filter((_, i) => i !== index));
    }
  };

  const slots = Array.from({ length: max }, (_, i) => i);
  return (
    <div data-hydrated="true">
      <input ref={input} type="hidden" name={name} value={JSON.stringify(photos)} data-list-required="" />
      <p className="mb-2 text-sm text-muted">{texts.hint}</p>
      <ul className="grid grid-cols-3 gap-2" aria-label={texts.hint}>
        {slots.map((i) => {
          const photo = photos[i];
          if (photo) {
            return (
              <li
                key={photo}
                className="relative aspect-square overflow-hidden rounded-xl bg-sunken"
                draggable
                onDragStart={(e: DragEvent) => {
                  dragFrom.current = i;
                  e.dataTransfer.effectAllowed = "move";
                }}
                onDragOver={(e: DragEvent) => e.preventDefault()}
                onDrop={(e: DragEvent) => {
                  e.preventDefault();
                  if (dragFrom.current !== null) move(dragFrom.current, i);
                  dragFrom.current = null;
                }}
              >
                <img
                  id={`${name}-photo-${i}`}
                  src={photoSrc(photo)}
                  alt={i === 0 ? texts.main : `${i + 1}`}
                  tabIndex={0}
                  onKeyDown={(e) => onKey(e, i)}
                  className="h-full w-full object-cover focus-visible:outline-2 focus-visible:outline-brand-500"
                  data-photo={photo}
                />
                {i === 0 ? (
                  // Seen, not read: the photo's alt text already says it is the main one.
                  <span className="absolute left-1.5 top-1.5 rounded-full bg-brand-600 px-2 py-0.5 text-xs font-semibold text-white" aria-hidden="true">
                    {texts.main}
                  </span>
                ) : null}
                {/* Each button is a 44 px target (a fingertip) in the tile's corner; the dark disc
                    drawn inside it stays small so the photo shows. */}
                <button
                  type="button"
                  className={`absolute right-0 top-0 ${CORNER_BUTTON}`}
                  aria-label={fill(texts.remove, { position: i + 1 })}
                  onClick={() => setPhotos(photos.filter((_, k) => k !== i))}
                >
                  <span className={DISC} aria-hidden="true">
                    ×
                  </span>
                </button>
                <div className="absolute inset-x-0 bottom-0 flex justify-between">
                  <button type="button" className={CORNER_BUTTON} aria-label={fill(texts.moveEarlier, { position: i + 1 })} disabled={i === 0} onClick={() => move(i, i - 1)}>
                    <span className={DISC} aria-hidden="true">
                      ‹
                    </span>
                  </button>
                  <button type="button" className={CORNER_BUTTON} aria-label={fill(texts.moveLater, { position: i + 1 })} disabled={i === photos.length - 1} onClick={() => move(i, i + 1)}>
                    <span className={DISC} aria-hidden="true">
                      ›
                    </span>
                  </button>
                </div>
              </li>
            );
          }
          const isNext = i === photos.length;
          return (
            <li key={`empty-${i}`} className="aspect-square">
              {busy === i ? (
                <div className="flex h-full w-full items-center justify-center rounded-xl border-2 border-dashed border-line" role="status" aria-label={texts.uploading}>
                  <span className="spinner" />
                </div>
              ) : (
                <label
                  className={`flex h-full w-full cursor-pointer flex-col items-center justify-center gap-1 rounded-xl border-2 border-dashed border-line text-sm text-muted hover:border-brand-500 focus-within:outline-2 focus-within:outline-brand-500 ${isNext ? "" : "opacity-60"}`}
                >
                  <span aria-hidden="true" className="text-2xl leading-none">
                    +
                  </span>
                  <span className={i === 0 ? "font-medium" : "sr-only"}>{i === 0 ? texts.main : texts.add}</span>
                  <input
                    type="file"
                    accept="image/jpeg,image/png,image/webp,image/gif,image/avif"
                    className="sr-only"
                    aria-label={`${texts.add} ${i + 1}`}
                    disabled={busy !== null}
                    data-photo-input={i}
                    onChange={(e) => {
                      void upload(e.target.files?.[0], photos.length);
                      e.target.value = "";
                    }}
                  />
                </label>
              )}
            </li>
          );
        })}
      </ul>
      <p className="sr-only" aria-live="polite">
        {announcement}
      </p>
    </div>
  );
}

export const mount = mountWith(PhotoGrid);
