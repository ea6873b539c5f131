#!/bin/sh
# Install Debian's Chromium for the browser test if it is missing.
# Never downloads a browser through Playwright; uses the system package manager only.
set -e
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=sudo
    else
        echo "ensure_chromium: /usr/bin/chromium is missing and we are not root;" \
             "install it with: apt-get install chromium" >&2
        exit 0
    fi
fi
${SUDO:-} apt-get update
DEBIAN_FRONTEND=noninteractive ${SUDO:-} apt-get install -y chromium
