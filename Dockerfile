# syntax=docker/dockerfile:1
# Bylaw's image, ghcr.io/bylaw/bylaw (the image deploy/ and charts/bylaw run):
#   docker build -t ghcr.io/bylaw/bylaw:0.1.0 .
# Node 24 LTS. Multi-stage: the build stage compiles the TypeScript and stages the runtime with
# scripts/image/stage.mjs (what test/deploy/image.test.ts runs and starts `bylaw serve` from); the
# runtime stage is distroless (glibc and libstdc++, no shell, no package manager) with only the
# node binary of the build stage and the staged folder. It runs as 65532:65532 (non-root, the
# Deployment's runAsUser) and writes nothing outside /tmp, so the root filesystem can be read-only.
# test/deploy/image.test.ts replays the build stage's COPY and RUN lines in order, from the build
# context .dockerignore leaves, so a file the build needs and no COPY brings fails that test.
# See docs/adr/0011-install-and-image.md.
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.engine.json README.md ./
COPY bin ./bin
COPY src ./src
COPY test ./test
COPY bench ./bench
COPY examples ./examples
COPY policies ./policies
COPY scripts/image ./scripts/image
COPY tools/bundle.mjs ./tools/
RUN npm run build
RUN node scripts/image/stage.mjs . /opt/bylaw

FROM gcr.io/distroless/cc-debian12:nonroot
ARG NODE_VERSION
LABEL org.opencontainers.image.title="bylaw" \
      org.opencontainers.image.description="A Kubernetes policy engine that runs Kyverno policies unchanged" \
      org.opencontainers.image.licenses="Apache-2.0" \
      dev.bylaw.node-version="${NODE_VERSION}"
COPY --from=build /usr/local/bin/node /nodejs/bin/node
COPY --from=build /opt/bylaw /opt/bylaw
ENV NODE_ENV=production
WORKDIR /opt/bylaw
USER 65532:65532
EXPOSE 9443 8000
ENTRYPOINT ["/nodejs/bin/node", "/opt/bylaw/bin/bylaw.js"]
CMD ["--help"]
