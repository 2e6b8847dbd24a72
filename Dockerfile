# PDF Gateway — `pdfgate` with its local converters (LibreOffice, Chromium, Calibre).
#
#   docker build -t pdfgate .
#   docker run -d -p 127.0.0.1:8080:8080 -v pdfgate-data:/data pdfgate
#
# Only the classic Dockerfile syntax is used (no BuildKit-only features), so both
# `docker compose` and the older `docker-compose` can build it.

# ---------------------------------------------------------------------------------------------
# Build: Swift toolchain plus the C libraries behind the CPoppler and CCurl targets and GRDB.
# ---------------------------------------------------------------------------------------------
FROM swift:6.3-bookworm AS build

RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends \
        libpoppler-glib-dev libcairo2-dev libglib2.0-dev \
        libcurl4-openssl-dev libsqlite3-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY . .

# The Swift runtime is linked in statically; Poppler, cairo, libcurl and SQLite stay shared
# and come from Debian in the runtime stage. One binary: its helpers are hidden subcommands.
RUN swift build -c release --static-swift-stdlib --product pdfgate \
    && bin="$(swift build -c release --show-bin-path)" \
    && mkdir -p /out \
    && cp "$bin/pdfgate" /out/ \
    && strip /out/pdfgate

# ---------------------------------------------------------------------------------------------
# Runtime: Debian 12 libraries and converters, no toolchain.
# ---------------------------------------------------------------------------------------------
FROM debian:bookworm-slim AS runtime

# - libpoppler-glib8, libcairo2, libcurl4, libsqlite3-0: what the binaries link against.
# - ca-certificates: HTTPS for URL jobs, webhooks and remote gateways; curl: the healthcheck.
# - poppler-utils: pdfinfo/pdftoppm for poking at the library from a shell (optional).
# - bubblewrap: the sandbox every converter process runs in (no network, read-only system).
# - tini: PID 1 that forwards SIGTERM to pdfgate (graceful shutdown) and reaps the grandchildren
#   that converters (soffice, chromium, ebook-convert) leave behind when they are killed.
# - the converters themselves, and fonts for every script (the same set as scripts/install-deps.sh:
#   metric-compatible Carlito, Caladea and Liberation for the Microsoft names, Noto for CJK, Thai,
#   Indic, Arabic, Hebrew and the rest, colour emoji); fc-cache builds their cache in the image, so
#   no converter scans them at its first start.
# - qpdf and ghostscript: the PDF operations (merge, split, rotate, encrypt, optimize, PDF/A);
#   libreoffice-draw imports a PDF for pdfua (PDF/UA), which it exports again tagged.
# - img2pdf, heif-convert, ImageMagick and Tesseract (English, German): scans and OCR.
# - python3-argon2 and python3-cryptography: the UNO worker decrypts an ODF file that LibreOffice
#   24.2 or later encrypted whole (Argon2id, AES-256-GCM), which LibreOffice 7.4 cannot open.
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends \
        libpoppler-glib8 libcairo2 libcurl4 libsqlite3-0 \
        ca-certificates curl poppler-utils tini bubblewrap \
        libreoffice-writer libreoffice-calc libreoffice-impress libreoffice-draw libreoffice-math python3-uno \
        python3-argon2 python3-cryptography \
        chromium \
        calibre \
        qpdf ghostscript \
        img2pdf libheif-examples imagemagick tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu \
        fontconfig fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-liberation2 fonts-urw-base35 \
        fonts-crosextra-carlito fonts-crosextra-caladea fonts-noto-core fonts-noto-cjk \
        fonts-noto-color-emoji fonts-noto-ui-core fonts-noto-mono \
    && fc-cache -s \
    && rm -rf /var/lib/apt/lists/*

COPY --from=build /out/pdfgate /usr/local/bin/
# `gotenberg`: the same gateway with Gotenberg's defaults (every interface, port 3000), so a
# compose file written for Gotenberg 8 runs this image with its own command and environment.
RUN printf '#!/bin/sh\nexec /usr/local/bin/pdfgate gotenberg "$@"\n' > /usr/local/bin/gotenberg \
    && chmod 755 /usr/local/bin/gotenberg

# The gateway runs as root inside the container on purpose: Chromium's own sandbox needs user
# namespaces, which Docker's default seccomp profile denies to unprivileged processes, and the
# Chromium converter passes --no-sandbox only when running as root. Calibre's Qt WebEngine gets
# the same treatment through this variable. Bind the port to localhost or put a proxy in front.
ENV QTWEBENGINE_DISABLE_SANDBOX=1 \
    PDFGATE_STORE=/data \
    LANG=C.UTF-8

VOLUME /data
WORKDIR /data
EXPOSE 8080

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1

# tini execs pdfgate with the CMD as its arguments, so `docker run IMAGE token create …`
# and `docker compose exec pdfgate pdfgate …` work as with a bare `pdfgate` entrypoint.
ENTRYPOINT ["/usr/bin/tini", "--", "pdfgate"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080", "--store", "/data"]

# `docker build --target gotenberg -t pdfgate:gotenberg .`: the same image, whose command is
# `pdfgate gotenberg` (Gotenberg's defaults: every interface, port 3000, no credentials, its routes
# alone), so Gotenberg's own compose example runs it with only its image line changed
# (deploy/gotenberg-compose.yml).
FROM runtime AS gotenberg
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD curl -fsS http://127.0.0.1:3000/health || exit 1
CMD ["gotenberg"]

# The default target: `pdfgate serve` (above), last so a plain `docker build` makes it.
FROM runtime AS serve
