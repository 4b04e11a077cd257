# Builds the single executable, then runs it alone with the data directory as a volume.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

FROM debian:bookworm-slim
RUN useradd --system --home /data offline && mkdir -p /data && chown offline /data
COPY --from=build /app/dist/offline /usr/local/bin/offline
USER offline
ENV DATA_DIR=/data PORT=3000 HOST=0.0.0.0
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s CMD ["/usr/local/bin/offline", "--health"]
CMD ["/usr/local/bin/offline"]
