"""The pin plan's checks that keep a first build from damaging a pin: buttons on the
serial console's pins only while the console is off (as the running Pi says, or the
configuration), and a serial board's LED chain laid out where it is driven."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from crownhead.firmware.app.hardware import open_hardware
from crownhead.firmware.config import ConfigError, FieldError, parse_config
from crownhead.firmware.config.hardware import check_pins
from crownhead.hal.clock import VirtualClock
from crownhead.hal.pi import header_console
from crownhead.sim.gpio_models import MatrixWiring


@pytest.mark.parametrize("backend", ["gpio", "shift"])
def test_the_default_buttons_are_refused_only_where_the_console_is_on(backend: str) -> None:
    config = parse_config({"board": {"backend": backend}})  # the default black/white: GPIO14/15
    assert config.board.serial_console == "auto" and dict(config.buttons.pins)["black"] == 14
    check_pins(config)  # the console is off on this Pi (or this is no Pi)
    with pytest.raises(FieldError) as refused:
        check_pins(config, console="ttyS0")
    assert (refused.value.key, refused.value.message) == (
        "buttons.pins.black",
        "GPIO14 is the UART's TX pin and this Pi's serial console runs on it "
        "(ttyS0): a press would pull the console's line to ground. Turn the console off: "
        "sudo raspi-config nonint do_serial_cons 1 and reboot; or move the button to a free pin",
    )
    # Said in the file, either way, instead of looked at.
    with pytest.raises(
        ConfigError, match=r'buttons\.pins\.black: .*board\.serial_console = "on".*set board\.serial_console = "auto"'
    ):
        parse_config({"board": {"backend": backend, "serial_console": "on"}})
    check_pins(parse_config({"board": {"backend": backend, "serial_console": "off"}}), console="ttyS0")


def test_other_pins_and_other_backends_do_not_care_about_the_console() -> None:
    pins = {"new": 16, "hint": 20, "black": 2, "white": 3}  # a board without a display
    check_pins(parse_config({"board": {"backend": "gpio", "serial_console": "on"}, "buttons": {"pins": pins}}))
    check_pins(parse_config({"board": {"backend": "serial", "serial_console": "on"}}))  # a Pico's buttons
    check_pins(parse_config({"board": {"serial_console": "on"}}))  # the simulator's
    with pytest.raises(FieldError, match=r"GPIO15 is the UART's RX pin .*\(ttyAMA0\)") as refused:
        check_pins(parse_config({"board": {"backend": "gpio"}, "buttons": {"pins": {"white": 15}}}), console="ttyAMA0")
    assert refused.value.key == "buttons.pins.white"


def test_serial_console_takes_auto_on_or_off() -> None:
    with pytest.raises(ConfigError, match="serial_console"):
        parse_config({"board": {"serial_console": "disabled"}})


def a_pi(root: Path, model: str, cmdline: str, uarts: tuple[str, ...] = ()) -> Path:
    """A made-up Pi's /proc and /sys: its model, kernel command line and UARTs."""
    (root / "proc/device-tree").mkdir(parents=True)
    (root / "proc/device-tree/model").write_bytes(model.encode() + b"\0")
    (root / "proc/cmdline").write_text(cmdline + "\n")
    for uart in uarts:
        (root / "sys/class/tty" / uart).mkdir(parents=True)
    return root


# The command lines as the Pi's firmware hands them to the kernel: Raspberry Pi OS's
# console=serial0,115200 already turned into the primary UART's name.
PI4 = "Raspberry Pi 4 Model B Rev 1.4"
TAIL = "console=tty1 root=PARTUUID=1a2b3c4d-02 rootfstype=ext4 fsck.repair=yes rootwait"


@pytest.mark.parametrize(
    "model, cmdline, uarts, found",
    [
        # As installed: enable_uart=0 left the mini UART off; its name stays on the line.
        (PI4, f"8250.nr_uarts=0 console=ttyS0,115200 {TAIL}", ("ttyAMA0",), None),
        (PI4, f"8250.nr_uarts=1 console=ttyS0,115200 {TAIL}", ("ttyAMA0", "ttyS0"), "ttyS0"),  # enable_uart=1
        (PI4, f"8250.nr_uarts=1 {TAIL}", ("ttyAMA0", "ttyS0"), None),  # raspi-config: no login shell
        ("Raspberry Pi Zero W Rev 1.1", f"console=ttyAMA0,115200 {TAIL}", ("ttyAMA0",), "ttyAMA0"),
        ("Raspberry Pi 2 Model B Rev 1.1", f"console=ttyAMA0,115200 {TAIL}", ("ttyAMA0",), "ttyAMA0"),
        ("Raspberry Pi 5 Model B Rev 1.0", f"console=ttyAMA10,115200 {TAIL}", ("ttyAMA10",), None),  # debug connector
        ("Raspberry Pi 5 Model B Rev 1.0", f"console=ttyAMA0,115200 {TAIL}", ("ttyAMA0", "ttyAMA10"), "ttyAMA0"),
        # A PC's console on its own serial port is not the header's.
        ("", f"console=ttyS0,115200n8 {TAIL}", ("ttyS0",), None),
    ],
)
def test_the_console_is_read_from_the_running_pi(
    tmp_path: Path, model: str, cmdline: str, uarts: tuple[str, ...], found: str | None
) -> None:
    assert header_console(a_pi(tmp_path, model, cmdline, uarts)) == found


def test_a_console_alias_is_followed_to_its_uart(tmp_path: Path) -> None:
    pi = a_pi(tmp_path, PI4, f"console=serial0,115200 {TAIL}", ("ttyS0",))
    assert header_console(pi) is None  # no /dev/serial0: the UART is off
    (pi / "dev").mkdir()
    (pi / "dev/serial0").symlink_to("ttyS0")
    assert header_console(pi) == "ttyS0"
    assert header_console(tmp_path / "nothing") is None


def test_opening_the_board_looks_at_the_pi(tmp_path: Path) -> None:
    config = parse_config({"board": {"backend": "gpio"}, "lights": {"backend": "none"}})
    pi = a_pi(tmp_path, PI4, f"console=ttyS0,115200 {TAIL}", ("ttyS0",))
    factory = MockFactory(pin_class=MatrixWiring(config.matrix.rows, config.matrix.cols).pin_class())
    with pytest.raises(ConfigError, match=r"buttons\.pins\.black: GPIO14 is the UART's TX pin .*\(ttyS0\)"):
        open_hardware(config, VirtualClock(), start=False, pin_factory=factory, system=pi)
    assert not factory.pins  # refused before any pin was claimed
    (pi / "sys/class/tty/ttyS0").rmdir()  # after raspi-config's no login shell and a reboot
    with open_hardware(config, VirtualClock(), start=False, pin_factory=factory, system=pi) as hw:
        assert hw.buttons is not None


def test_a_serial_boards_chain_is_laid_out_on_the_board() -> None:
    with pytest.raises(ConfigError, match="LED_MAP and LED_ORIGIN"):
        parse_config({"board": {"backend": "serial"}, "lights": {"map": "serpentine"}})
    # For LEDs the Pi drives, the same keys are what lays the chain out.
    config = parse_config({"board": {"backend": "gpio", "serial_console": "off"}, "lights": {"map": "serpentine"}})
    assert config.lights.map == "serpentine"
