"""Slot families: which facts answer the same question about a subject.

A slot names one attribute (`home`, `employer`, `phone`, `pref:drink`,
`vehicle:car`); its *family* groups the slots whose facts compete for "what
is true now": a new job replaces the employer and the role together, so
`employer`, `workplace` and `role` are one family, `work`; a new phone
number replaces the number, not the e-mail, so `phone` and `email` share the
family `contact` without replacing each other. The families:

- home (address, city, "our place");
- work (employer, workplace, role);
- contact (phone, e-mail);
- a relation's attributes: a sibling's home, a partner's name (the same
  slots, read on that person's page);
- habits and preferences (the morning drink, diet, commute, `pref:*`);
- providers (`provider:gp`, `provider:dentist`, `provider:gym`, …);
- vehicles (`vehicle:car`, `vehicle:bike`, …);
- who the person is (name, nicknames, birthday, age) and the many-valued
  ones (pets, allergies, health, tools of different kinds).

`replaces(new, old)` says whether a newer fact of slot `new` ends the current
fact of slot `old`: always within one single-valued slot; across slots only
where the family says so (a new employer ends the role held there).
"""

from __future__ import annotations

from substrate.meaning.slot_rules import CAR_MAKES, VEHICLE_KINDS

# A slot's family, for the slots that share one; a slot of its own is its family.
_SHARED = {
    "employer": "work",
    "workplace": "work",
    "role": "work",
    "phone": "contact",
    "email": "contact",
    "name": "identity",
    "nickname": "identity",
    "birthday": "identity",
    "age": "identity",
}
_PREFIXED = {
    "pref:drink": "drink",
    "pref:": "preference",
    "tool:": "tool",
    "habit:": "habit",
    "provider:": "provider",
    "vehicle:": "vehicle",
}
# A newer fact of the key's slot also ends the current facts of these slots.
_ALSO_ENDS = {
    "employer": frozenset({"workplace", "role"}),
    "workplace": frozenset({"employer", "role"}),
}
# Slots whose facts never replace one another: every value stands.
MANY = frozenset({"pet", "allergy", "health", "nickname", "membership", "course"})
# The person's page (`me/<topic>`) each family is filed on.
TOPIC = {
    "home": "home",
    "work": "work",
    "contact": "contact",
    "identity": "about",
    "partner": "family",
    "school": "education",
    "diet": "health",
    "drink": "food",
    "pet": "pets",
    "allergy": "health",
    "health": "health",
    "tool": "tech",
    "habit": "health",
    "provider": "health",
    "vehicle": "vehicles",
    "passport": "travel",
    "preference": "preferences",
    "membership": "hobbies",
    "course": "education",
}


# What a cessation may name by kind or by make rather than by a fact's own words:
# the family of the thing it ends ("I quit my job", "I sold my Fiat").
THING_FAMILY = {
    **dict.fromkeys("job work position post role career contract".split(), "work"),
    **dict.fromkeys("flat place house home apartment room lease".split(), "home"),
    **dict.fromkeys([*VEHICLE_KINDS, *CAR_MAKES], "vehicle"),
    **dict.fromkeys("number phone mobile email".split(), "contact"),
    **dict.fromkeys("partner girlfriend boyfriend husband wife fiance fiancee".split(), "partner"),
    # the bond itself, in both languages: "we called off the engagement", "فسخت الخطوبة"
    **dict.fromkeys("engagement relationship marriage".split(), "partner"),
    # studies by kind: "she graduated" ends the studies ("تخرج": الدراسة)
    **dict.fromkeys("studies degree university uni الدراسة دراسة دراستي".split(), "school"),
    **dict.fromkeys(
        "الخطوبة خطوبة الخطوبه خطوبتي الارتباط ارتباطي الزواج زواجي".split(), "partner"
    ),
}
# Of those, the ones that name a kind, not a thing of its own: they end the
# family's newest fact ("my job"), where a make ends the fact naming it.
GENERIC = frozenset(w for w in THING_FAMILY if w not in CAR_MAKES)


def thing_family(values: tuple[str, ...]) -> str | None:
    """The family of the first thing among `values` that names one."""
    for value in values:
        for word in reversed(value.split()):
            if word in THING_FAMILY:
                return THING_FAMILY[word]
    return None


def family_of(slot: str | None) -> str | None:
    """The family `slot` belongs to (None for no slot)."""
    if not slot:
        return None
    if slot in _SHARED:
        return _SHARED[slot]
    for prefix, family in _PREFIXED.items():
        if slot == prefix or (prefix.endswith(":") and slot.startswith(prefix)):
            return family
    return slot


def replaces(new: str | None, old: str | None) -> bool:
    """Whether a newer fact of slot `new` ends the current fact of slot `old`."""
    if not new or not old or new in MANY:
        return False
    return new == old or old in _ALSO_ENDS.get(new, frozenset())


def same_family(a: str | None, b: str | None) -> bool:
    return a is not None and family_of(a) == family_of(b)
