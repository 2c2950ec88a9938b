"""The test hosts: three small Django apps shaped like the sites that install the app."""
