# Build: docker build -t remote-config-server .
# Run:   docker run -p 8080:8080 -e RCS_ADMIN_TOKEN=... -v rcs-data:/data remote-config-server
# Nodes: docker run -p 8080:8080 -e RCS_ADMIN_TOKEN=... -e RCS_DATABASE_URL=postgresql://... remote-config-server
FROM swift:6.2-bookworm AS build
RUN apt-get update -qq && apt-get install -y -qq pkgconf libsqlite3-dev libcurl4-openssl-dev zlib1g-dev libssl-dev libpq-dev
WORKDIR /src
COPY Package.swift ./
COPY Sources Sources
COPY Tests Tests
RUN swift build -c release --product remote-config-server && swift build -c release --product rcctl

FROM debian:bookworm-slim
RUN apt-get update -qq && apt-get install -y -qq libsqlite3-0 libcurl4 zlib1g libssl3 libpq5 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/lib/swift/linux/*.so /usr/lib/swift/linux/
COPY --from=build /src/.build/release/remote-config-server /src/.build/release/rcctl /usr/local/bin/
COPY migrations /usr/share/remote-config-server/migrations
COPY config/remote-config.json /etc/remote-config-server/remote-config.json
ENV LD_LIBRARY_PATH=/usr/lib/swift/linux \
    RCS_CONFIG=/etc/remote-config-server/remote-config.json \
    RCS_MIGRATIONS_DIR=/usr/share/remote-config-server/migrations \
    RCS_HOST=0.0.0.0 \
    RCS_DATA_DIR=/data
RUN mkdir -p /data && chown nobody /data
VOLUME /data
EXPOSE 8080
USER nobody
ENTRYPOINT ["remote-config-server"]
