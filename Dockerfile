# The Simple Simon Online server. Build: docker build -t simple-simon-online .
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    SIMON_HOST=0.0.0.0 \
    SIMON_PORT=8765 \
    SIMON_DATA_DIR=/data

WORKDIR /app
COPY pyproject.toml setup.py README.md LICENSE ./
COPY server ./server
COPY client_cli ./client_cli
COPY migrations ./migrations
# a C compiler for the install only: the solver's search is compiled (setup.py), then removed
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && pip install . \
    && apt-get purge -y --auto-remove gcc libc6-dev && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home-dir /data --create-home simon

USER simon
VOLUME ["/data"]
EXPOSE 8765

HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request, sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=2).status != 200)"

# SIGTERM (docker stop) shuts the server down cleanly.
CMD ["simon-server"]
