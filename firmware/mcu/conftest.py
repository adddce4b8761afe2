# The files in pico/ are MicroPython programs for the Pico: main.py starts the firmware
# when imported. They are tested through firmware.mcu.load_firmware, never imported.
collect_ignore = ["pico"]
