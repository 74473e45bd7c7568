"""The CRUSH map: its model and validators, crushtool/osdmaptool, and the data-movement preview."""
