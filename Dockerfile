# syntax=docker/dockerfile:1
# The Marrakech Discord bot. Build: docker build -t marrakech-bot .
# Run:   docker run -d --env-file .env -v marrakech-data:/data marrakech-bot
# The token comes only from the environment at run time; nothing secret is baked in.

# Stage 1: build the project and its dependencies into a self-contained virtualenv.
# Every third-party package comes at the exact version and file hash of requirements/*.lock
# (refresh: bash requirements/refresh.sh): the dependencies from runtime.lock, the build
# backend that makes the project's wheel from build.lock; the project goes in without deps.
# The locks are complete, so nothing is resolved (--no-deps): the image builds the same
# whatever the index has published since, and `pip check` fails the build if a lock misses
# a dependency, of the locked packages or of the project itself (the same install as
# requirements/install.sh).
FROM python:3.11-slim AS builder
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore
WORKDIR /src
COPY requirements/runtime.lock requirements/build.lock requirements/
RUN python -m venv --without-pip /opt/marrakech \
 && pip --python /opt/marrakech/bin/python install --no-deps --require-hashes \
        -r requirements/runtime.lock \
 && pip --python /opt/marrakech/bin/python check \
 && python -m venv /opt/build \
 && /opt/build/bin/pip install --no-deps --require-hashes -r requirements/build.lock \
 && /opt/build/bin/pip check
COPY pyproject.toml README.md ./
COPY engine/ engine/
COPY ai/ ai/
COPY render/ render/
COPY bot/ bot/
RUN /opt/build/bin/pip wheel --no-deps --no-build-isolation --wheel-dir /tmp/dist . \
 && pip --python /opt/marrakech/bin/python install --no-deps /tmp/dist/marrakech_bot-*.whl \
 && pip --python /opt/marrakech/bin/python check

# Stage 2: the runtime, with only the virtualenv, running as an unprivileged user.
FROM python:3.11-slim
LABEL org.opencontainers.image.title="marrakech-bot" \
      org.opencontainers.image.description="A self-hostable Discord bot for the board game Marrakech"
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONSAFEPATH=1 \
    PATH=/opt/marrakech/bin:$PATH \
    MARRAKECH_DB=/data/marrakech.sqlite3
RUN useradd --system --uid 10001 --user-group --home-dir /home/marrakech --create-home marrakech \
 && mkdir -p /data \
 && chown marrakech:marrakech /data
COPY --from=builder /opt/marrakech /opt/marrakech
USER marrakech
# The bot's default paths are relative (data/marrakech.sqlite3, data/heartbeat): from /, they
# are in the volume, so an empty MARRAKECH_DB in an env file (which replaces the value above,
# and reads as unset) still keeps the games in /data. PYTHONSAFEPATH keeps `python -m bot`
# (the HEALTHCHECK) from importing the folders of / as modules.
WORKDIR /
VOLUME /data
# The bot refreshes /data/heartbeat every 30 s while its gateway connection is up, and
# records there every 5 s that its event loop runs; the check fails once the gateway beat
# is older than 90 s or the event loop has been blocked for more than 30 s.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot", "healthcheck"]
ENTRYPOINT ["marrakech-bot"]
