"""A one-file synthetic corpus about heat-pump efficiency and a question half of which it does not cover
(gas boilers, noise): the honest-report tests ask it in-process and over the protocol."""

HEAT_PUMPS = """# Heat pumps in cold climates

## Efficiency

A heat pump moves heat from outdoor air into a building instead of burning fuel. Its efficiency is
given as the coefficient of performance (COP): the heat delivered divided by the electricity used.

At an outdoor temperature of 7 °C a typical air-source heat pump reaches a COP of about 3.5. The COP
falls as the outdoor air gets colder: at -15 °C modern cold-climate models still reach a COP of about 2.

## Defrosting

Below freezing, frost builds up on the outdoor coil. The heat pump reverses for a few minutes to melt
it, which lowers the seasonal efficiency by a few percent.
"""

TWO_PARTS = (
    "How efficient are heat pumps in cold climates compared with gas boilers, "
    "and what is the noise level of heat pumps?"
)
