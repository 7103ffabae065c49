# syntax=docker/dockerfile:1
# Multi-stage build: a static miniwatchd binary on a minimal, non-root image.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/miniwatchd ./cmd/miniwatchd

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/miniwatchd /usr/local/bin/miniwatchd
USER nonroot:nonroot
EXPOSE 6379
# Listen on every interface inside the container (the default is 127.0.0.1),
# and turn protected mode off on purpose: with it on (Redis's default) and no
# password, every client that is not on the container's own loopback (other
# containers, the host through a published port) gets Redis's DENIED error.
# A test double on a private network wants them in. Anywhere reachable by
# others, keep protected mode and set a password instead: append
# "--protected-mode yes --requirepass <secret>" (or an ACL user) to the
# container's command. See README "Listeners, protected mode, TLS".
ENTRYPOINT ["/usr/local/bin/miniwatchd", "--bind", "0.0.0.0", "--protected-mode", "no"]
