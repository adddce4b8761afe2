# Runs at every reset of the Pico: the Crownhead board firmware (crownhead_board.py).
# Ctrl-C (a person at the REPL, or mpremote copying files) stops it and stops the
# watchdog, so the REPL stays usable until the next reset.
import crownhead_board

crownhead_board.main()
