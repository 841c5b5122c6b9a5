# syntax=docker/dockerfile:1
# The Marrakech Discord bot. Build: docker build -t marrakech-bot .
# Run:   docker run -d --env-file .env -v marrakech-data:/data marrakech-bot
# The token comes only from the environment at run time; nothing secret is baked in.

# Stage 1: build the project and its dependencies into a self-contained virtualenv.
FROM python:3.11-slim AS builder
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY engine/ engine/
COPY render/ render/
COPY bot/ bot/
RUN python -m venv --without-pip /opt/marrakech \
 && pip --python /opt/marrakech/bin/python install .

# Stage 2: the runtime, with only the virtualenv, running as an unprivileged user.
FROM python:3.11-slim
LABEL org.opencontainers.image.title="marrakech-bot" \
      org.opencontainers.image.description="A self-hostable Discord bot for the board game Marrakech"
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/marrakech/bin:$PATH \
    MARRAKECH_DB=/data/marrakech.sqlite3
RUN useradd --system --uid 10001 --user-group --home-dir /home/marrakech --create-home marrakech \
 && mkdir -p /data \
 && chown marrakech:marrakech /data
COPY --from=builder /opt/marrakech /opt/marrakech
USER marrakech
WORKDIR /home/marrakech
VOLUME /data
# The bot refreshes /data/heartbeat every 30 s while its gateway connection is up;
# the check fails once the heartbeat is older than 90 s.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot", "healthcheck"]
ENTRYPOINT ["marrakech-bot"]
