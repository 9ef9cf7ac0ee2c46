# Tolk's container image: a static binary (built with the Go module
# proxy only) on a small base with git, run as a user without
# privileges, its data in a volume.
#
#   docker build --build-arg REVISION=$(git rev-parse HEAD) -t tolk .
#   docker run -p 8080:8080 -v tolk-data:/data tolk
#   docker run --rm -v tolk-data:/data tolk user add alice --admin --data /data
#
# Flags after the image name replace the default command, e.g.
#   docker run -p 8080:8080 -v tolk-data:/data tolk serve --data /data \
#     --listen :8080 --base-url https://tolk.example.com --config /data/tolk.yaml

ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION} AS build
WORKDIR /src
# Modules come from the Go module proxy only (never straight from their
# repositories), checked against go.sum and the checksum database; the
# toolchain is the image's own. modernc.org/sqlite is pure Go, so the
# binary needs no C library.
ENV CGO_ENABLED=0 GOPROXY=https://proxy.golang.org GOSUMDB=sum.golang.org \
    GOTOOLCHAIN=local GOFLAGS="-mod=readonly -buildvcs=false"
COPY go.mod go.sum ./
RUN go mod download && go mod verify
COPY . .
# The build context has no .git (.dockerignore), so the version and the
# revision tolk --version prints are given as build arguments.
ARG VERSION=""
ARG REVISION=""
RUN go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.revision=${REVISION}" \
        -o /out/tolk ./cmd/tolk \
    && /out/tolk --version

FROM alpine:3.22
# git: go-git runs the git binary's git-upload-pack and git-receive-pack
# for file:// repositories (the demo's among them); https:// and ssh://
# need no binary. CA certificates for https://. The user has no
# privileges; its home is the data directory, so ssh's known_hosts
# (/data/.ssh/known_hosts) lives in the volume.
RUN apk add --no-cache ca-certificates git \
    && adduser -D -H -u 10001 -h /data tolk \
    && mkdir /data && chown tolk:tolk /data
COPY --from=build /out/tolk /usr/local/bin/tolk
USER tolk
ENV HOME=/data
WORKDIR /data
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["tolk"]
CMD ["serve", "--data", "/data", "--listen", ":8080"]
