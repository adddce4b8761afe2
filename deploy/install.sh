#!/usr/bin/env bash
# One command from a fresh Raspberry Pi OS Lite (Bookworm, 64-bit; Pi 3, 4, 5) to a
# board that starts at boot (docs/install.md):
#
#   sudo deploy/install.sh                 # from the checkout, e.g. /opt/crownhead
#   sudo deploy/install.sh --extras web    # and the board's web page (web,hall: the hall too)
#   sudo deploy/install.sh --uninstall     # undo it (games and config are kept; --purge: not)
#
# Steps: the system packages, the user "crownhead" and its groups, SPI/I2C on and the
# serial console off (Pi only), the per-model config.txt lines, the venv in
# /opt/crownhead/.venv with the model's extra (pi4 or pi5), /usr/local/bin/crownhead, the
# configuration (an existing one is kept), the service, `crownhead selftest`, a summary.
# Run twice, it changes nothing. Off a Pi (no /proc/device-tree/model) the Pi's steps are
# skipped with a word, and so is the service's start where systemd is not running (a
# chroot).
#
# Options:
#   --extras LIST   more extras for the venv, e.g. web or web,hall
#   --model M       pi3, pi4, pi5 or none instead of reading /proc/device-tree/model
#   --uninstall     undo the install; --purge also removes the games, config and user
#   --root DIR      act on a tree under DIR instead of / (the tests' fake root: system
#                   commands are taken from PATH, as ever)
#   --no-selftest   skip the closing selftest
set -euo pipefail

ROOT=""
EXTRAS=""
MODEL=""
UNINSTALL=0
PURGE=0
SELFTEST=1
while [ $# -gt 0 ]; do
    case "$1" in
        --extras) EXTRAS="$2"; shift 2 ;;
        --extras=*) EXTRAS="${1#*=}"; shift ;;
        --model) MODEL="$2"; shift 2 ;;
        --model=*) MODEL="${1#*=}"; shift ;;
        --uninstall) UNINSTALL=1; shift ;;
        --purge) UNINSTALL=1; PURGE=1; shift ;;
        --root) ROOT="${2%/}"; shift 2 ;;
        --root=*) ROOT="${1#*=}"; ROOT="${ROOT%/}"; shift ;;
        --no-selftest) SELFTEST=0; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

case "$MODEL" in
    ""|pi3|pi4|pi5|none) ;;
    *) echo "install.sh: --model $MODEL: not one of pi3, pi4, pi5, none" >&2; exit 2 ;;
esac
if [ -z "$ROOT" ] && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run it as root: sudo $0 $*" >&2
    exit 2
fi

USER_NAME=crownhead
GROUPS_WANTED=(gpio spi i2c dialout audio)
PACKAGES=(python3-venv python3-dev build-essential git espeak-ng alsa-utils)
SRC="$(cd "$(dirname "$0")/.." && pwd)"
HOME_DIR=/opt/crownhead
VENV=$HOME_DIR/.venv
STATE=/var/lib/crownhead
CONF_DIR=/etc/crownhead
CONF=$CONF_DIR/config.toml
UNIT=/etc/systemd/system/crownhead.service
LINK=/usr/local/bin/crownhead
MARK_BEGIN="# crownhead: begin (deploy/install.sh; --uninstall removes these lines)"
MARK_END="# crownhead: end"

CHANGED=()
SKIPPED=()
WARNINGS=()
changed() { CHANGED+=("$1"); echo "  + $1"; }
skipped() { SKIPPED+=("$1"); echo "  - $1"; }
warn() { WARNINGS+=("$1"); echo "  ! $1" >&2; }
step() { echo "== $1"; }

# The Pi's model, from the device tree (empty off a Pi).
detect_model() {
    if [ -n "$MODEL" ]; then
        # Never end on a test that fails: under set -e the function's status would stop
        # the install without a word (--model pi4 did).
        if [ "$MODEL" = none ]; then MODEL=""; fi
        return 0
    fi
    local file=$ROOT/proc/device-tree/model text=""
    [ -r "$file" ] && text=$(tr -d '\0' <"$file")
    case "$text" in
        "Raspberry Pi 5"*|"Raspberry Pi Compute Module 5"*) MODEL=pi5 ;;
        "Raspberry Pi 4"*|"Raspberry Pi Compute Module 4"*) MODEL=pi4 ;;  # the Pi 400 too
        "Raspberry Pi 3"*|"Raspberry Pi Compute Module 3"*|"Raspberry Pi Zero 2"*) MODEL=pi3 ;;
        "Raspberry Pi"*) MODEL=pi1 ;;
        *) MODEL="" ;;
    esac
}

boot_config() {
    local f
    for f in /boot/firmware/config.txt /boot/config.txt; do
        if [ -f "$ROOT$f" ]; then
            echo "$f"
            return 0
        fi
    done
    return 0
}

# The lines this install adds to config.txt for the model: the core clock that keeps the
# SPI NeoPixels' bit rate steady (Pi 3, Pi 4); SPI and I2C where raspi-config is missing.
config_lines() {
    case "$MODEL" in
        pi3) echo "core_freq=250" ;;
        pi4) echo "core_freq=500"; echo "core_freq_min=500" ;;
    esac
    if ! command -v raspi-config >/dev/null 2>&1; then
        case "$MODEL" in pi1|pi3|pi4) echo "dtparam=spi=on" ;; esac
        echo "dtparam=i2c_arm=on"
    fi
}

# config.txt without this install's block.
without_block() {
    awk -v b="$MARK_BEGIN" -v e="$MARK_END" '$0==b{skip=1; next} $0==e{skip=0; next} !skip' "$1"
}

has_user() { getent passwd "$USER_NAME" >/dev/null 2>&1; }
has_group() { getent group "$1" >/dev/null 2>&1; }
in_group() { getent group "$1" | cut -d: -f4 | tr , '\n' | grep -qx "$USER_NAME"; }
systemd_running() { [ -z "$ROOT" ] && [ -d /run/systemd/system ]; }
as_user() {
    if command -v runuser >/dev/null 2>&1; then runuser -u "$USER_NAME" -- "$@"; else su -s /bin/sh "$USER_NAME" -c "$(printf '%q ' "$@")"; fi
}

# The model's extra and the --extras asked for now or by an earlier run (kept in the
# venv: a later run without --extras keeps the page or the hall installed).
extra_for_model() {
    local list="" saved="" e
    case "$MODEL" in
        pi1|pi3|pi4) list=pi4 ;;
        pi5) list=pi5 ;;
    esac
    [ -f "$ROOT$VENV/.crownhead-extras" ] && saved=$(cat "$ROOT$VENV/.crownhead-extras")
    for e in $(echo "$saved,$EXTRAS" | tr ',' ' ' | xargs -n1 2>/dev/null | sort -u); do
        case ",$list," in *",$e,"*) ;; *) list="${list:+$list,}$e" ;; esac
    done
    echo "$list"
}

# What the venv's install depends on: re-installed only when one of these changed.
install_stamp() {
    {
        echo "extras=$(extra_for_model)"
        cat "$ROOT$HOME_DIR/pyproject.toml" "$ROOT$HOME_DIR/setup.py" "$ROOT$HOME_DIR/rules/engine/_native.c" 2>/dev/null
    } | sha256sum | cut -d' ' -f1
}

copy_checkout() {
    local dest=$ROOT$HOME_DIR
    if [ "$SRC" = "$dest" ]; then
        skipped "the checkout is $HOME_DIR already"
        return
    fi
    local list
    list=$(mktemp)
    if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$SRC" ls-files -z --cached --others --exclude-standard >"$list"
    else
        (cd "$SRC" && find . -path ./.venv -prune -o -path ./build -prune -o -name node_modules -prune \
            -o -name __pycache__ -prune -o -type f -print0) >"$list"
    fi
    local stage
    stage=$(mktemp -d)
    (cd "$SRC" && tar --null --ignore-failed-read -T "$list" -cf - 2>/dev/null) | tar -C "$stage" -xf -
    rm -f "$list"
    if [ -d "$dest" ] && diff -rq --exclude=.venv --exclude=build --exclude='*.egg-info' --exclude=__pycache__ \
        --exclude='*.so' --exclude=.installed-from "$stage" "$dest" >/dev/null 2>&1; then
        skipped "$HOME_DIR is the checkout's copy already"
    else
        mkdir -p "$dest"
        cp -a "$stage/." "$dest/"
        echo "$SRC" >"$dest/.installed-from"
        changed "copied the checkout to $HOME_DIR"
    fi
    rm -rf "$stage"
}

install() {
    detect_model
    echo "Crownhead install: ${MODEL:-not a Raspberry Pi} (model), root ${ROOT:-/}"

    step "system packages"
    local missing=() p
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        local log
        log=$(mktemp)
        echo "  apt-get install ${missing[*]} (a few minutes)"
        if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
            cat "$log" >&2
            rm -f "$log"
            echo "install.sh: apt-get failed (above); nothing after it was done" >&2
            exit 1
        fi
        rm -f "$log"
        changed "installed ${missing[*]}"
    else
        skipped "${PACKAGES[*]} are installed"
    fi

    step "the user $USER_NAME and its groups"
    local g
    for g in "${GROUPS_WANTED[@]}"; do
        if ! has_group "$g"; then
            groupadd --system "$g"
            changed "made the group $g (a Pi has it; here it was missing)"
        fi
    done
    if ! has_user; then
        useradd --system --home-dir "$STATE" --shell /usr/sbin/nologin --user-group "$USER_NAME"
        changed "made the user $USER_NAME"
    fi
    local add=()
    for g in "${GROUPS_WANTED[@]}"; do in_group "$g" || add+=("$g"); done
    if [ ${#add[@]} -gt 0 ]; then
        usermod -aG "$(IFS=,; echo "${add[*]}")" "$USER_NAME"
        changed "put $USER_NAME in ${add[*]}"
    else
        skipped "$USER_NAME is in ${GROUPS_WANTED[*]}"
    fi
    # Its home and state directory, before the service ever ran: `crownhead selftest` as
    # the user keeps its result there.
    if [ ! -d "$ROOT$STATE" ]; then
        mkdir -p "$ROOT$STATE"
        chmod 0750 "$ROOT$STATE"
        changed "made $STATE"
    fi
    if [ -z "$ROOT" ] && [ "$(stat -c %U "$STATE")" != "$USER_NAME" ]; then
        chown "$USER_NAME:$USER_NAME" "$STATE"
        changed "gave $STATE to $USER_NAME"
    fi

    step "the Pi's interfaces and config.txt"
    if [ -z "$MODEL" ]; then
        skipped "not a Raspberry Pi (no /proc/device-tree/model): SPI, I2C, the serial console and config.txt left alone"
    else
        if command -v raspi-config >/dev/null 2>&1; then
            # SPI carries the NeoPixels on a Pi 1-4; a Pi 5 drives them with its PIO and
            # leaves SPI off (docs/hardware.md). I2C: the display. The serial console
            # off: the black and white buttons share its pins.
            local want=() k
            case "$MODEL" in pi5) ;; *) want+=("spi") ;; esac
            want+=("i2c" "serial_cons")
            for k in "${want[@]}"; do
                local now target=0
                [ "$k" = serial_cons ] && target=1
                now=$(raspi-config nonint "get_$k" 2>/dev/null || echo "?")
                if [ "$now" != "$target" ]; then
                    raspi-config nonint "do_$k" "$target"
                    changed "raspi-config nonint do_$k $target"
                fi
            done
        else
            warn "no raspi-config: SPI and I2C go on through config.txt; turn the serial console off yourself if it is on (docs/install.md)"
        fi
        local cfg
        cfg=$(boot_config)
        if [ -z "$cfg" ]; then
            warn "no /boot/firmware/config.txt: add $(config_lines | tr '\n' ' ')yourself"
        else
            local want_block new
            want_block=$(config_lines)
            new=$(mktemp)
            without_block "$ROOT$cfg" >"$new"
            if [ -n "$want_block" ]; then
                { echo "$MARK_BEGIN"; echo "$want_block"; echo "$MARK_END"; } >>"$new"
            fi
            if cmp -s "$new" "$ROOT$cfg"; then
                skipped "$cfg has the model's lines"
            else
                cat "$new" >"$ROOT$cfg"
                changed "$cfg: $(echo "$want_block" | tr '\n' ' ')(takes effect at the next boot)"
                REBOOT=1
            fi
            rm -f "$new"
        fi
    fi

    step "the software in $VENV"
    copy_checkout
    if [ ! -x "$ROOT$VENV/bin/python" ]; then
        python3 -m venv "$ROOT$VENV"
        changed "made the venv $VENV"
    fi
    local extra stamp spec
    extra=$(extra_for_model)
    EXTRAS_NOW=$(echo "$extra" | tr ',' '\n' | { grep -vx 'pi4\|pi5' || true; } | paste -sd, -)
    stamp=$(install_stamp)
    spec="$HOME_DIR${extra:+[$extra]}"
    if [ "$(cat "$ROOT$VENV/.crownhead-installed" 2>/dev/null)" != "$stamp" ]; then
        "$ROOT$VENV/bin/pip" install --quiet --upgrade pip
        # setuptools tells every editable install "Please be careful with folders in your
        # working directory..." as a warning that pip passes on, --quiet or not: noise in
        # the maker's summary (seen in check-install.sh's runs), never a fault.
        PYTHONWARNINGS="${PYTHONWARNINGS:+$PYTHONWARNINGS,}ignore:Editable installation" \
            "$ROOT$VENV/bin/pip" install --quiet -e "$ROOT$spec"
        echo "$stamp" >"$ROOT$VENV/.crownhead-installed"
        echo "$EXTRAS_NOW" >"$ROOT$VENV/.crownhead-extras"
        changed "pip install -e '$spec'"
    else
        skipped "'$spec' is installed"
    fi
    local native
    native=$("$ROOT$VENV/bin/python" -c 'from crownhead.rules.engine import native; print(native.describe())' 2>&1 || true)
    case "$native" in
        "native search core"*) echo "  $native" ;;
        *) warn "$native" ;;
    esac
    if [ "$(readlink "$ROOT$LINK" 2>/dev/null)" != "$VENV/bin/crownhead" ]; then
        mkdir -p "$(dirname "$ROOT$LINK")"
        ln -sfn "$VENV/bin/crownhead" "$ROOT$LINK"
        changed "linked $LINK"
    fi

    step "the configuration"
    if [ -f "$ROOT$CONF" ]; then
        skipped "$CONF exists: kept as it is"
    else
        mkdir -p "$ROOT$CONF_DIR"
        cp "$ROOT$HOME_DIR/config.example.toml" "$ROOT$CONF"
        chmod 0640 "$ROOT$CONF"
        [ -z "$ROOT" ] && chgrp "$USER_NAME" "$ROOT$CONF"
        changed "wrote $CONF from config.example.toml (board.backend = \"sim\": edit it for your wiring)"
    fi

    step "the service"
    if cmp -s "$ROOT$HOME_DIR/deploy/crownhead.service" "$ROOT$UNIT"; then
        skipped "$UNIT is up to date"
    else
        mkdir -p "$(dirname "$ROOT$UNIT")"
        cp "$ROOT$HOME_DIR/deploy/crownhead.service" "$ROOT$UNIT"
        changed "installed $UNIT"
        UNIT_CHANGED=1
    fi
    local wants=$ROOT/etc/systemd/system/multi-user.target.wants/crownhead.service
    if [ ! -L "$wants" ]; then
        mkdir -p "$(dirname "$wants")"
        ln -sfn "$UNIT" "$wants"
        changed "enabled crownhead.service (starts at boot)"
    fi
    if systemd_running; then
        [ "${UNIT_CHANGED:-0}" = 1 ] && systemctl daemon-reload
        if ! systemctl is-active --quiet crownhead; then
            systemctl start crownhead
            changed "started crownhead.service"
        elif [ "${UNIT_CHANGED:-0}" = 1 ]; then
            systemctl restart crownhead
            changed "restarted crownhead.service"
        fi
    else
        skipped "systemd is not running here (a chroot?): the service starts at the next boot"
    fi

    if [ "$SELFTEST" = 1 ]; then
        # As the board's user, on the simulator (unattended: the walk of the real squares
        # needs a hand, `crownhead selftest` once the wiring is in config.toml), its
        # result kept aside so that the page's status waits for the real one.
        step "crownhead selftest (on the simulator, as $USER_NAME)"
        if [ -n "$ROOT" ]; then
            skipped "selftest (a fake root)"
        else
            if as_user test -w "$STATE"; then
                echo "  $USER_NAME can keep games and results in $STATE"
            else
                warn "$USER_NAME cannot write $STATE"
            fi
            local out aside
            out=$(mktemp)
            aside=$(mktemp -d)
            chown "$USER_NAME" "$aside"
            if (cd "$STATE" && as_user "$VENV/bin/crownhead" selftest --hal sim --config "$CONF" --state-dir "$aside") >"$out" 2>&1; then
                echo "  $(tail -n 1 "$out")"
            else
                warn "crownhead selftest failed: $(tail -n 3 "$out" | tr '\n' ' ')"
            fi
            rm -rf "$out" "$aside"
        fi
    fi
    summary
}

uninstall() {
    detect_model
    echo "Crownhead uninstall, root ${ROOT:-/}"
    if systemd_running && systemctl is-active --quiet crownhead; then
        systemctl stop crownhead
        changed "stopped crownhead.service"
    fi
    local f
    for f in /etc/systemd/system/multi-user.target.wants/crownhead.service "$UNIT" "$LINK"; do
        if [ -e "$ROOT$f" ] || [ -L "$ROOT$f" ]; then
            rm -f "$ROOT$f"
            changed "removed $f"
        fi
    done
    if systemd_running; then systemctl daemon-reload; fi
    if [ -d "$ROOT$VENV" ]; then
        rm -rf "$ROOT$VENV"
        changed "removed $VENV"
    fi
    if [ -f "$ROOT$HOME_DIR/.installed-from" ]; then
        rm -rf "${ROOT:?}$HOME_DIR"
        changed "removed $HOME_DIR (the copy of $(basename "$SRC"))"
    fi
    local cfg
    cfg=$(boot_config)
    if [ -n "$cfg" ] && grep -qxF "$MARK_BEGIN" "$ROOT$cfg"; then
        local new
        new=$(mktemp)
        without_block "$ROOT$cfg" >"$new"
        cat "$new" >"$ROOT$cfg"
        rm -f "$new"
        changed "removed this install's lines from $cfg"
    fi
    if [ "$PURGE" = 1 ]; then
        for f in "$CONF_DIR" "$STATE"; do
            if [ -e "$ROOT$f" ]; then
                rm -rf "${ROOT:?}$f"
                changed "removed $f"
            fi
        done
        if has_user; then
            userdel "$USER_NAME"
            changed "removed the user $USER_NAME"
        fi
    else
        skipped "kept $CONF, the games in $STATE and the user $USER_NAME (--purge removes them)"
    fi
    skipped "kept the system packages (${PACKAGES[*]}) and SPI/I2C/serial settings: other software may use them"
    summary
}

summary() {
    echo
    if [ ${#CHANGED[@]} -eq 0 ]; then
        echo "Nothing changed: everything was in place."
    else
        echo "Changed ${#CHANGED[@]} thing(s):"
        printf '  %s\n' "${CHANGED[@]}"
    fi
    if [ ${#WARNINGS[@]} -gt 0 ]; then
        echo "Warnings:"
        printf '  %s\n' "${WARNINGS[@]}"
    fi
    if [ "$UNINSTALL" = 0 ]; then
        echo "Next: edit $CONF for your wiring (board.backend, pins), check it with"
        echo "  sudo -u $USER_NAME crownhead selftest    (walks every square: docs/build.md)"
        echo "then: sudo systemctl restart crownhead && journalctl -u crownhead -f"
        [ "${REBOOT:-0}" = 1 ] && echo "Reboot first: config.txt changed (sudo reboot)."
    fi
    return 0
}

if [ "$UNINSTALL" = 1 ]; then uninstall; else install; fi
