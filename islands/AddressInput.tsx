/** @jsxImportSource react */
import { useEffect, useId, useRef, useState } from "react";
import { mountWith } from "./mount";

export interface AddressInputProps {
  name: string;
  value: string;
  label: string;
  placeholder: string;
  geocoderUrl: string;
  /** Narrows suggestions to the activity's city. */
  near: string;
  maxLength: number;
  invalid?: boolean;
  describedBy?: string;
  /** For a parent island (the wizard); forms read the input itself. */
  onValueChange?: (value: string) => void;
}

/**
 * A text input with address suggestions from the geocoder (debounced, keyboard navigable, as a
 * combobox). When the service cannot be reached it is simply a text input.
 */
export function AddressInput({ name, value: initial, label, placeholder, geocoderUrl, near, maxLength, invalid, describedBy, onValueChange }: AddressInputProps) {
  const [value, setRawValue] = useState(initial);
  const setValue = (v: string) => {
    setRawValue(v);
    onValueChange?.(v);
  };
  const [options, setOptions] = useState<string[]>([]);
  const [active, setActive] = useState(-1);
  const [open, setOpen] = useState(false);
  const id = useId();
  const skip = useRef(true);

  useEffect(() => {
    if (skip.current) {
      skip.current = false;
      return;
    }
    if (value.trim().length < 3) {
      setOptions([]);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(async () => {
      try {
        const url = new URL(geocoderUrl);
        url.searchParams.set("q", `${value}, ${near}`);
        url.searchParams.set("format", "json");
        url.searchParams.set("limit", "5");
        const res = await fetch(url, { signal: controller.signal, headers: { Accept: "application/json" } });
        if (!res.ok) return;
        const places = (await res.json()) as { display_name?: string }[];
        setOptions(places.map((p) => p.display_name ?? "").filter(Boolean).slice(0, 5));
        setActive(-1);
        setOpen(true);
      } catch {
        // Suggestions are a help, not a need: typing still works.
      }
    }, 350);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [value, geocoderUrl, near]);

  const choose = (option: string) => {
    skip.current = true;
    setValue(option.slice(0, maxLength));
    setOpen(false);
    setOptions([]);
  };

  return (
    <div className="relative" data-hydrated="true">
      <input
        id={`${name}-input`}
        name={name}
        value={value}
        maxLength={maxLength}
        placeholder={placeholder}
        aria-label={label}
        className="input"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open && options.length > 0}
        aria-controls={`${id}-list`}
        aria-activedescendant={active >= 0 ? `${id}-${active}` : undefined}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        autoComplete="off"
        onChange={(e) => setValue(e.target.value)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={(e) => {
          if (!open || !options.length) return;
          if (e.key === "ArrowDown") {
            e.preventDefault();
            setActive((a) => (a + 1) % options.length);
          } else if (e.key === "ArrowUp") {
            e.preventDefault();
            setActive((a) => (a - 1 + options.length) % options.length);
          } else if (e.key === "Enter" && active >= 0) {
            e.preventDefault();
            choose(options[active]!);
          } else if (e.key === "Escape") setOpen(false);
        }}
      />
      {open && options.length ? (
        <ul id={`${id}-list`} role="listbox" className="absolute inset-x-0 top-full z-20 mt-1 overflow-hidden rounded-xl border border-line bg-raised shadow-lg">
          {options.map((option, i) => (
            <li
              key={option}
              id={`${id}-${i}`}
              role="option"
              aria-selected={i === active}
              className={`cursor-pointer px-3 py-2 text-sm ${i === active ? "bg-sunken" : ""}`}
              onMouseDown={(e) => {
                e.preventDefault();
                choose(option);
              }}
            >
              {option}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export const mount = mountWith(AddressInput);
