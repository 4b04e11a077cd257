/** @jsxImportSource react */
import { useEffect, useRef, useState } from "react";
import { mountWith } from "./mount";

export interface ActivityMapProps {
  /** What to look up: the meeting point, or "city, country" for the area. */
  query: string;
  zoom: number;
  tileUrl: string;
  geocoderUrl: string;
  attribution: string;
  label: string;
  /** Leaflet's stylesheet, fetched with the map rather than holding up the page's first paint. */
  stylesheet: string | null;
}

/** Links a stylesheet (once) and resolves when it applies. */
function loadStylesheet(href: string) {
  let link = [...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')].find((l) => l.getAttribute("href") === href);
  if (link?.sheet) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    if (!link) {
      link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = href;
      document.head.append(link);
    }
    link.addEventListener("load", () => resolve(), { once: true });
    link.addEventListener("error", () => reject(new Error("the map's stylesheet did not load")), { once: true });
  });
}

/**
 * OpenStreetMap through Leaflet: once its box is on screen, finds the place with the geocoder,
 * then shows tiles and a marker (exact address, zoom 16) or a circle (city area, zoom 12). If the
 * geocoder or the tiles cannot be reached, the map stays hidden and the address text and link
 * around it remain.
 */
export function ActivityMap({ query, zoom, tileUrl, geocoderUrl, attribution, label, stylesheet }: ActivityMapProps) {
  const container = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<"loading" | "ready" | "failed">("loading");

  // Leaflet, the geocoder and the tiles wait until the map's box shows on screen: the island
  // itself mounts a screen ahead (islands/loader.ts), so its box is in place before it is seen.
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const box = container.current;
    if (shown || !box) return;
    if (typeof IntersectionObserver === "undefined") return setShown(true);
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setShown(true);
    });
    observer.observe(box);
    return () => observer.disconnect();
  }, [shown]);

  useEffect(() => {
    if (!shown) return;
    let cancelled = false;
    let map: import("leaflet").Map | null = null;
    (async () => {
      try {
        // Leaflet and its stylesheet come while the geocoder answers.
        const leaflet = import("leaflet");
        const styled = stylesheet ? loadStylesheet(stylesheet) : Promise.resolve();
        leaflet.catch(() => {});
        styled.catch(() => {});
        const url = new URL(geocoderUrl);
        url.searchParams.set("q", query);
        url.searchParams.set("format", "json");
        url.searchParams.set("limit", "1");
        const res = await fetch(url, { headers: { Accept: "application/json" }, signal: AbortSignal.timeout(8000) });
        if (!res.ok) throw new Error(`geocoder answered ${res.status}`);
        const [place] = (await res.json()) as { lat: string; lon: string }[];
        if (!place) throw new Error("place not found");
        const [L] = await Promise.all([leaflet, styled]);
        if (cancelled || !container.current) return;
        const center: [number, number] = [Number(place.lat), Number(place.lon)];
        map = L.map(container.current, { zoomControl: true, attributionControl: true, scrollWheelZoom: false }).setView(center, zoom);
        let loaded = 0;
        const layer = L.tileLayer(tileUrl, { attribution, maxZoom: 19 });
        layer.on("tileload", () => {
          loaded++;
          setState("ready");
        });
        // No tile at all within a while: the tile server cannot be reached.
        setTimeout(() => !cancelled && loaded === 0 && setState("failed"), 8000);
        layer.addTo(map);
        if (zoom >= 15) L.circleMarker(center, { radius: 9, color: "#e8553d", weight: 3, fillOpacity: 0.6 }).addTo(map);
        else L.circle(center, { radius: 2500, color: "#e8553d", weight: 2, fillOpacity: 0.12 }).addTo(map);
      } catch (err) {
        console.warn("map unavailable:", err instanceof Error ? err.message : err);
        if (!cancelled) setState("failed");
      }
    })();
    return () => {
      cancelled = true;
      map?.remove();
    };
  }, [shown, query, zoom, tileUrl, geocoderUrl, attribution, stylesheet]);

  return (
    <div
      ref={container}
      data-map-state={state}
      role="region"
      aria-label={label}
      className={state === "failed" ? "hidden" : "h-56 w-full overflow-hidden rounded-xl bg-sunken"}
    />
  );
}

export const mount = mountWith(ActivityMap);
