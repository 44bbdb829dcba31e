"""The made-up world a synthetic Mem2ActBench release is written from: tools, facts, requests, small talk.

Fourteen tools in BFCL's schema shape, in families of look-alikes (flight / train / car, weather /
forecast, send / request money), so hard negatives are hard. Each parameter says the phrase a
person uses for it ("home city") and the values it may take; a fact states one explicitly ("my
home city is Lisbon.") or lets it be inferred ("I grew up in Texas and still think of temperatures
the American way." for fahrenheit). A parameter with a schema default can be grounded as that
default. One tool is the "4D Dream Dictionary", whose gold call the writer names with the number 4,
as the pinned commit does. Every request names the action without its arguments; some name the
tool's own words, some only paraphrase it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Param", "Tool", "TOOLS", "SMALL_TALK", "ASSISTANT_REPLIES", "NON_STRING_TOOL"]

NON_STRING_TOOL = "4D Dream Dictionary"


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    description: str
    attribute: str
    """How a person names it in a statement ("home city")."""
    values: tuple[Any, ...]
    enum: tuple[str, ...] = ()
    default: Any = None
    inferred: tuple[tuple[Any, str], ...] = ()
    """(value, a sentence that implies it without saying it)."""

    def schema(self) -> dict[str, Any]:
        node: dict[str, Any] = {"type": self.type, "description": self.description}
        if self.enum:
            node["enum"] = list(self.enum)
        if self.default is not None:
            node["default"] = self.default
        return node


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    params: tuple[Param, ...]
    requests: tuple[str, ...]
    required: tuple[str, ...] = field(default=())

    def schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "parameters": {"type": "dict", "properties": {p.name: p.schema() for p in self.params},
                               "required": list(self.required or tuple(p.name for p in self.params
                                                                       if p.default is None))}}


_CITIES = ("Lisbon", "Porto", "Lyon", "Turin", "Ghent", "Bergen", "Seville", "Gdansk", "Utrecht", "Graz")
_PLACES = ("Reykjavik", "Kyoto", "Marrakesh", "Havana", "Tallinn", "Valparaiso", "Hobart", "Tbilisi")
_PEOPLE = ("Ana", "Bruno", "Chiara", "Dmitri", "Elif", "Farah", "Goran", "Hana")

_ORIGIN = Param("origin", "string", "Home city the trip starts from", "home city", _CITIES)
_DESTINATION = Param("destination", "string", "Dream destination city to travel to", "dream destination", _PLACES)
_UNITS = Param("units", "string", "Temperature units", "preferred temperature units", ("celsius", "fahrenheit"),
               enum=("celsius", "fahrenheit"), default="celsius",
               inferred=(("fahrenheit", "I grew up in Texas and still think of temperatures the American way."),))
_CITY = Param("city", "string", "City to look up, usually where the user lives", "current city", _CITIES)

TOOLS: tuple[Tool, ...] = (
    Tool("book_flight", "Book a flight for the user.", (
        _ORIGIN, _DESTINATION,
        Param("seat_class", "string", "Cabin seat class", "usual seat class", ("economy", "business"),
              enum=("economy", "business", "first"), default="economy",
              inferred=(("business", "My company always pays for the front cabin with the lie-flat seats."),)),
        Param("passengers", "integer", "Number of passengers travelling", "travel party size", (2, 3, 4),
              default=1)),
        ("Book me a flight for the trip I keep talking about.", "Sort out getting me there, the usual way.")),
    Tool("book_train", "Book a train ticket for the user.", (
        _ORIGIN, _DESTINATION,
        Param("carriage", "string", "Kind of carriage", "favourite carriage", ("quiet", "standard"),
              enum=("quiet", "standard"), default="standard",
              inferred=(("quiet", "I need total silence to read when I travel."),))),
        ("Get me a train ticket for that trip.", "I'd rather go over land this time, can you arrange it?")),
    Tool("rent_car", "Rent a car for the user.", (
        Param("pickup_city", "string", "Home city to pick the car up in", "home city", _CITIES),
        Param("car_type", "string", "Kind of car", "preferred car type", ("compact", "suv"),
              enum=("compact", "suv", "van"), default="compact",
              inferred=(("van", "We travel with five kids and all of their gear."),)),
        Param("days", "integer", "Rental length in days", "usual rental length in days", (3, 5, 7))),
        ("Rent me a car like last time.", "I need wheels for the week, set it up.")),
    Tool("get_weather", "Get the current weather in a city.", (_CITY, _UNITS),
         ("What's the weather like where I live?", "Should I take a coat today?")),
    Tool("get_forecast", "Get the weather forecast for the coming days in a city.", (
        _CITY, Param("days", "integer", "How many days ahead", "forecast length in days", (5, 7), default=3),
        _UNITS),
        ("Give me the forecast for the next days here.", "Will the week stay dry at home?")),
    Tool("book_hotel", "Reserve a hotel room for the user.", (
        Param("city", "string", "Dream destination city of the hotel", "dream destination", _PLACES),
        Param("nights", "integer", "Number of nights", "usual stay length in nights", (2, 3, 4)),
        Param("room_type", "string", "Kind of room", "preferred room type", ("single", "double"),
              enum=("single", "double", "suite"), default="double",
              inferred=(("suite", "I always want a separate living room when I travel."),))),
        ("Find me somewhere to stay on that trip.", "Book me a hotel for the getaway.")),
    Tool("order_coffee", "Order a coffee drink to pick up.", (
        Param("drink", "string", "Coffee drink", "go-to coffee drink", ("flat white", "cortado", "americano")),
        Param("size", "string", "Cup size", "usual cup size", ("small", "medium"),
              enum=("small", "medium", "large"), default="medium",
              inferred=(("large", "In the mornings I need the biggest cup they make."),)),
        Param("milk", "string", "Milk to use", "milk choice", ("whole", "soy"),
              enum=("whole", "oat", "soy", "none"), default="whole",
              inferred=(("oat", "I only drink plant milk pressed from oats."),))),
        ("Order my usual coffee.", "I could use a pick-me-up, get me the regular.")),
    Tool("reserve_table", "Reserve a table at a restaurant.", (
        Param("cuisine", "string", "Favourite cuisine of the restaurant", "favourite cuisine",
              ("Georgian", "Peruvian", "Korean", "Ethiopian")),
        Param("party_size", "integer", "Number of diners", "dinner party size", (2, 4, 6),
              inferred=((4, "Dinner is always me, my wife and our two kids."),)),
        Param("city", "string", "Current city of the restaurant", "current city", _CITIES)),
        ("Book us a table for dinner tonight.", "Find us somewhere nice to eat tonight.")),
    Tool("send_money", "Send money to a contact.", (
        Param("recipient", "string", "Person who receives the money", "landlord", _PEOPLE),
        Param("amount", "number", "Amount of money", "monthly rent amount", (450, 700, 925)),
        Param("currency", "string", "Currency code", "currency code", ("GBP", "USD"), default="EUR",
              inferred=(("CHF", "My salary and every bill I pay are in Swiss francs."),))),
        ("Pay the rent for this month.", "Transfer what I owe for the flat.")),
    Tool("request_money", "Ask a contact to pay money back.", (
        Param("recipient", "string", "Person who owes the money", "flatmate", _PEOPLE),
        Param("amount", "number", "Amount owed", "shared bill amount", (35, 60, 80)),
        Param("currency", "string", "Currency code", "currency code", ("GBP", "USD"), default="EUR")),
        ("Ask for the bill money back.", "Remind whoever owes me to settle up.")),
    Tool("play_music", "Play music of a genre.", (
        Param("genre", "string", "Music genre", "favourite music genre", ("fado", "bossa nova", "techno")),
        Param("volume", "integer", "Volume from 0 to 100", "usual listening volume", (20, 80), default=50)),
        ("Put some music on.", "Play me something I like.")),
    Tool("set_reminder", "Set a reminder for the user.", (
        Param("title", "string", "What to be reminded of", "daily habit", ("stretching", "medication", "journaling")),
        Param("time", "string", "When, as HH:MM", "habit time", ("07:30", "21:00", "13:15"))),
        ("Set up my daily reminder.", "Make sure I don't forget my routine.")),
    Tool("translate_text", "Translate text into a language.", (
        Param("target_language", "string", "Language to translate into", "partner's native language",
              ("Polish", "Turkish", "Tagalog")),
        Param("formality", "string", "Register of the translation", "preferred tone", ("informal", "neutral"),
              enum=("formal", "informal", "neutral"), default="neutral",
              inferred=(("formal", "These notes go to my bank manager, so keep them proper."),))),
        ("Translate my message for them.", "Help me say this in their language.")),
    Tool(NON_STRING_TOOL, "Look up what a dream symbol means.", (
        Param("symbol", "string", "Dream symbol to look up", "recurring dream symbol", ("falling", "teeth", "water")),),
        ("What could my dream mean?", "Look up that dream I keep having.")),
)

SMALL_TALK = (
    "Did you see the match last night?", "I finally fixed the squeaky door.", "The bakery down the road closed.",
    "Remind me how photosynthesis works?", "My neighbour's cat visited again.", "What is a good stretch for backs?",
    "I started learning to juggle.", "Is it true octopuses have three hearts?", "Work was quiet today.",
    "I repainted the kitchen a pale green.", "Can you explain compound interest simply?",
    "I keep forgetting to water the plants.", "We watched an old film on Sunday.", "What rhymes with orange?",
)
ASSISTANT_REPLIES = (
    "Noted, thanks for telling me.", "That sounds lovely.", "Happy to help with that.", "Good to know.",
    "Interesting, tell me more.", "I'll keep that in mind.", "Sure, here is a short answer.",
)
