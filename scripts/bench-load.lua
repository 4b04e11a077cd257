-- The bench's load (scripts/bench-load.ts): wrk calls `request` for every request it sends.
-- Each request draws a path and a signed-in person's cookie from the file named after `--`:
--   mode <fixed|uniform|zipf>
--   accept <Accept-Encoding value>
--   cookie <Cookie header value>     (any number, none for a visitor who is not signed in)
--   path <path>                      (any number; for zipf, most popular first)
-- uniform draws every path alike; zipf draws the path of rank k with a weight of 1/k (s = 1).

local paths, cookies = {}, {}
local cumulative = nil
local total = 0
local headers = {}

function init(args)
  local mode = "uniform"
  for line in io.lines(args[1]) do
    local key, value = line:match("^(%a+) (.*)$")
    if key == "mode" then mode = value
    elseif key == "accept" then headers["Accept-Encoding"] = value
    elseif key == "cookie" then cookies[#cookies + 1] = value
    elseif key == "path" then paths[#paths + 1] = value
    end
  end
  if #paths == 0 then error("no paths in " .. args[1]) end
  if mode == "zipf" then
    cumulative = {}
    for k = 1, #paths do
      total = total + 1 / k
      cumulative[k] = total
    end
  end
  math.randomseed(os.time() + math.floor(os.clock() * 1e6))
end

local function drawPath()
  if not cumulative then return paths[math.random(#paths)] end
  -- The first rank whose cumulative weight reaches a uniform draw (binary search).
  local u = math.random() * total
  local lo, hi = 1, #paths
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if cumulative[mid] < u then lo = mid + 1 else hi = mid end
  end
  return paths[lo]
end

function request()
  if #cookies > 0 then headers["Cookie"] = cookies[math.random(#cookies)] end
  return wrk.format("GET", drawPath(), headers)
end

-- One line the bench reads: latency in microseconds; `status` counts answers of 400 and above.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT {\"requests\":%d,\"duration\":%d,\"bytes\":%d,\"connect\":%d,\"read\":%d,\"write\":%d,\"status\":%d,\"timeout\":%d,\"p50\":%d,\"p99\":%d}\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
