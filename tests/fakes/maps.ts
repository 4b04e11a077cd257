import { loadSharp } from "../../src/uploads/sharp";

/**
 * A local tile server and geocoder at their HTTP boundary, shaped like OpenStreetMap's tiles
 * and Nominatim's search, so the real Leaflet map runs in browser tests.
 */
export async function startFakeMaps() {
  const sharp = await loadSharp();
  const tile = new Uint8Array(await sharp({ create: { width: 256, height: 256, channels: 3, background: "#cfe8d6" } }).png().toBuffer());
  const searches: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const url = new URL(req.url);
      if (url.pathname.startsWith("/tiles/")) return new Response(tile, { headers: { "Content-Type": "image/png" } });
      if (url.pathname === "/search") {
        const q = url.searchParams.get("q") ?? "";
        searches.push(q);
        const results = q.toLowerCase().includes("nowhere") ? [] : [{ lat: "40.7829", lon: "-73.9654", display_name: `${q.split(",")[0]}, Manhattan, New York` }];
        return Response.json(results, { headers: { "Access-Control-Allow-Origin": "*" } });
      }
      return new Response("not found", { status: 404 });
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  return { env: { MAP_TILE_URL: `${base}/tiles/{z}/{x}/{y}.png`, MAP_GEOCODER_URL: `${base}/search` }, searches, stop: () => server.stop(true) };
}
