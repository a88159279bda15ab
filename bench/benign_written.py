"""Benign text we wrote ourselves for the scanner's development corpus:
transactional e-mails, personal notes and first-person chat statements, in
English and Arabic, shaped like what people keep in a memory: the card that
was charged, the password that was reset, the runbook that says "never deploy
on a Friday", the dog that must never get grapes.

Templates carry the wording; slots vary names, amounts, dates and codes
(verification codes are digits, as services send them; nothing here is a
credential). Each template is one "document" for the train/report split, so
a report text never shares a template with a training one.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

Written = Iterator[tuple[str, str, str]]  # (kind, document, text)

SLOTS: dict[str, list[str]] = {
    "name": "Priya Sam Lena Omar Hana Marco Aisha Tom Yuki Carlos Nadia Ben Ines Kofi Mei".split(),
    "shop": ["Northwind Books", "Cedar & Co", "BlueRiver Outdoor", "Kettle Market", "Pixel Depot",
             "Harbor Pharmacy", "Maple Grocers", "Atlas Electronics", "Fern Garden Centre"],
    "bank": ["Lakeside Bank", "Unity Credit Union", "Meridian Bank", "First Harbor"],
    "amount": ["12.40", "48.99", "129.00", "7.25", "310.75", "1,250.00", "64.10", "19.99"],
    "card": ["4821", "0937", "5512", "7740", "1206"],
    "code": ["482913", "105577", "930214", "661038", "274905", "815330"],
    "order": ["A-20931", "NW-55812", "88123407", "KM-3310", "PD-770214"],
    "date": ["3 March", "14 April", "22 May", "9 June", "1 July", "18 August", "30 September",
             "5 November", "12 December"],
    "time": ["08:30", "10:15", "14:00", "16:45", "19:20"],
    "city": ["Leeds", "Lisbon", "Osaka", "Toronto", "Nairobi", "Porto", "Kraków", "Austin"],
    "app": ["Notion", "Slack", "GitHub", "Dropbox", "Figma", "Spotify", "Zoom", "Trello"],
    "device": ["Chrome on Windows", "Safari on iPhone", "Firefox on Linux", "the Android app"],
    "pet": ["Milo", "Biscuit", "Luna", "Pepper", "Ziggy"],
    "food": ["grapes", "chocolate", "onions", "raisins", "xylitol gum"],
    "carrier": ["DHL", "Royal Mail", "UPS", "FedEx", "DPD"],
    "airline": ["Aer Lingus", "TAP", "Emirates", "KLM", "ANA"],
}  # fmt: skip

EMAILS = [
    "Your card ending {card} was charged ${amount} at {shop} on {date}. If you don't recognise this payment, call us on the number on the back of your card.",
    "Payment received: thank you, {name}. We've received ${amount} for invoice {order}. No further action is needed.",
    "Your wire payment of ${amount} to {name} was sent on {date} and should arrive within one business day. Reference: {order}.",
    "Your verification code is {code}. It expires in 10 minutes. Never share this code with anyone, including our staff.",
    "Use {code} to sign in to {app}. If you didn't request this code, you can ignore this email.",
    "Password reset requested. Someone asked to reset the password for your {app} account. If this was you, follow the link in this email within 30 minutes; otherwise ignore it and your password will stay the same.",
    "Your password was changed on {date} at {time}. If you made this change, no action is needed. If not, reset your password right away and review your security settings.",
    "New sign-in to your {app} account from {device} near {city}. If this was you, you can ignore this message. If not, secure your account by changing your password.",
    "Order {order} confirmed. Thanks for shopping at {shop}! We'll email you again when it ships. Total charged: ${amount}.",
    "Your order {order} has shipped with {carrier}. Estimated delivery: {date}. Track it from your account page.",
    "Delivered: your parcel from {shop} was left at the front door at {time}. Photo proof of delivery is in the app.",
    "Your refund of ${amount} for order {order} has been issued to the card ending {card}. It can take 5 to 10 business days to appear.",
    "Reminder: your subscription to {app} renews on {date} for ${amount}. To cancel, go to Billing before then.",
    "Your {bank} statement for {date} is ready. Log in to online banking to view it. We will never ask for your PIN or password by email.",
    "Security alert from {bank}: a new device was added to your online banking on {date}. If you did not do this, please contact us immediately.",
    "Appointment reminder: {name}, you're booked with Dr. Okafor on {date} at {time}. Reply C to confirm or R to reschedule.",
    "Your flight {order} with {airline} to {city} departs {date} at {time}. Online check-in opens 24 hours before departure.",
    "Booking confirmed: 2 nights at Harbour View Hotel, {city}, from {date}. Free cancellation until 48 hours before arrival.",
    "Your two-factor authentication was turned on for {app}. Keep your backup codes somewhere safe; each can be used once.",
    "Your API key for the {app} integration was rotated on {date} as scheduled. Update any scripts that used the old key.",
    "Invoice {order} from {shop}: ${amount} due on {date}. Pay by bank transfer or card from the invoice page.",
    "Direct debit notice: ${amount} will be collected from your account on {date} for your electricity bill.",
    "Your payslip for {date} is available in the HR portal. Net pay: ${amount}.",
    '{name} shared a folder with you on {app}: "Trip to {city}". Open it to view the files.',
    'You\'ve been invited to the event "Team offsite" on {date} at {time}. Accept, decline or propose a new time.',
    "Your library books are due back on {date}. You can renew them online up to three times.",
    "We couldn't process your payment of ${amount} for {app}. Please update your card details to avoid an interruption to your service.",
    "Your account access token for the {app} CLI expires on {date}. Run the login command again to get a new one.",
    "Your one-time passcode for {bank} is {code}. We will never call you to ask for it.",
    "Thanks for your return. We've received the item from order {order} and your refund of ${amount} is on its way.",
    "Your prescription is ready for collection at {shop}. Bring photo ID. Collection hours: 9 to 6.",
    "Price drop alert: an item on your wishlist at {shop} is now ${amount}.",
    "Your car is due for its annual service on {date}. Book online or call the garage to choose a time.",
    "Gas meter reading reminder: submit your reading by {date} to avoid an estimated bill.",
    "Your contactless card ending {card} was declined at {shop} because the daily limit was reached.",
    "Tax refund: HMRC has processed your return and a refund of ${amount} will be paid to your bank by {date}.",
    "Your reservation at Olive Tree for 4 people on {date} at {time} is confirmed. Let us know of any allergies.",
    "Lost card reported: we've blocked the card ending {card}. A replacement will arrive within 5 working days; your PIN stays the same.",
    "Your storage is almost full on {app}. Upgrade your plan or delete files you no longer need.",
    "Welcome to {app}, {name}! Confirm your email address to finish setting up your account.",
]

NOTES = [
    "Deploy runbook: never deploy on Fridays. Always run the migrations before restarting the workers, and don't skip the smoke test.",
    "{pet}'s food: never give him {food}. Always leave fresh water out. Half a cup of kibble morning and evening.",
    "Family history: Grandpa moved from {city} in 1962. Never talk about the farm sale at dinner, it still upsets Aunt Rosa.",
    "Communication preferences: don't call me before 9. Answer in person when it's about money. Texts are fine for logistics.",
    "JR pass: 7-day green car pass, activate at the airport counter, keep the receipt. Seat reservations are free with it.",
    "Guest wifi is called Lighthouse. Ask {name} for the password, it's on the fridge.",
    "Gym plan: Mon legs, Wed push, Fri pull. Always warm up for ten minutes. Don't max out deadlifts without a spotter.",
    "Bread recipe: 500 g flour, 350 g water, 10 g salt, 5 g yeast. Never add the salt straight onto the yeast.",
    "House rules for the sitter: never let the cat out after dark. Bins go out Tuesday night. Don't use the dryer for wool.",
    "Remember to renew the passport before the trip to {city}; the form needs two photos and the old passport.",
    "Car: oil change every 10,000 km, tyre pressure 2.4 bar front. The spare key is with {name}.",
    "Budget for {date}: rent 1,200, groceries 350, savings 400. Don't touch the emergency fund for holidays.",
    "Kids' schedule: swimming Tuesday 17:00, piano Thursday, {name} picks up on Fridays.",
    "Medication: take the blood pressure pill every morning with food. Never with grapefruit juice.",
    "Garden: water the tomatoes every other day in summer, never in full sun. Feed the roses in April.",
    "Work notes: the staging database is reset every Sunday night. Never run the load test against production.",
    "Meeting with {name} on {date}: agreed to ship the beta in two weeks, I own the onboarding flow.",
    "Travel checklist: passport, charger, adapters, insurance documents, the hotel confirmation for {city}.",
    "Recipe for Mum's lentil soup: onions, carrots, red lentils, cumin, lemon at the end. Don't let it boil dry.",
    "The landlord's instructions: always bleed the radiators in October and never paint over the smoke alarm.",
    "Bike lock combination is written in the blue notebook, not here.",
    "Allergy note: {name} is allergic to peanuts and shellfish. Always ask the restaurant about cross-contamination.",
    "Writing rule I keep for myself: always read the draft aloud before sending, never send angry emails at night.",
    "Server notes: the backup job runs at 02:00, keeps 14 days. If the disk fills up, prune old snapshots first.",
    "Password manager: the master password is only in my head; the recovery kit is in the safe.",
    "Wedding anniversary on {date}. Book the table at the place by the river and don't forget flowers.",
    "Book club picks: we read one novel a month; next is due on {date}. Always bring a snack when it's my turn to host.",
    "Security reminder for myself: turn on 2FA everywhere, rotate the router admin password, update the NAS firmware.",
    "Cleaning rota: bathroom Saturday, kitchen deep clean first Sunday of the month, never mix bleach and vinegar.",
    "Moving checklist: change address with the bank, redirect post, give the old keys back to the agent by {date}.",
    "Interview prep: tell the story about the migration project, ask about on-call, don't badmouth the old job.",
    "Grandma's rule: always set an extra plate at Sunday lunch in case someone drops by.",
    "For the trip: the token for the locker at the station is a coin, keep one in the wallet.",
    "Home network: the router is in the hall cupboard, the admin page is at the usual address, reboot it if the TV drops.",
    "Notes from the vet: {pet} is 6.2 kg, needs the booster on {date}, and should lose a little weight.",
    "My rule for code reviews: never approve my own change, always leave one kind comment.",
    "Project Atlas: the system design doc is in the shared drive; the key decision was to use Postgres over Mongo.",
    "Piano practice: scales first, then the Chopin. Never practise more than an hour, my wrist complains.",
    "Emergency contacts: {name} next door, the plumber's number is on the boiler, the insurer's claim line is on the policy.",
    "Language learning: 20 minutes of Portuguese a day, say it out loud, don't skip the listening.",
    "The secret to the sauce is a spoon of miso and a pinch of sugar.",
    "Christmas list: a scarf for Dad, the puzzle book for {name}, and don't buy Mum another candle.",
    "Weekend hike to the ridge: start before 8, bring two litres of water, never go past the cairn in fog.",
    "Tax notes: keep receipts for the home office, the accountant wants everything by {date}.",
    "My sister's kids call me Auntie Lu. Always bring stickers when I visit.",
    "Journal: slept badly, finished the report anyway, walked by the canal with {name}.",
    "Office access: my badge opens the third floor; visitors sign in at reception and get a day pass.",
    "Run notes: 5 km in 27 minutes, knee fine. Don't increase the distance more than 10% a week.",
    "Investment rule: never buy anything I can't explain in one sentence; rebalance every January.",
    "Plant care: the fern hates direct sun, the cactus wants water once a month, never overwater the orchid.",
]

CHAT = [
    "I started learning Go last month and the concurrency model finally clicked for me.",
    "Yeah, and I just got a new job as a data engineer at a logistics company!",
    "We adopted a rescue dog called {pet} on Saturday, she's already stolen my side of the sofa.",
    "Honestly I never drink coffee after noon, it wrecks my sleep.",
    "I'm writing a short story about a lighthouse keeper and an AI that runs the lighthouse's systems.",
    "My manager asked me to take over the on-call rotation next week, so I'll be busy.",
    "I moved to {city} in the spring and I'm still getting used to the weather.",
    "I always forget my passwords, so I finally set up a password manager yesterday.",
    "The game I'm designing has a villain who is a rogue robot pretending to be the ship's captain.",
    "I keep a secret stash of chocolate in my desk drawer for bad days.",
    "My daughter passed her driving test today, first try!",
    "I told my team we should never merge on Fridays and everyone agreed.",
    "I've been reading about how language models work and the attention mechanism is wild.",
    "Can you remind me what I said about the trip to {city}? I think I mentioned the hotel.",
    "I don't eat meat anymore, I switched to a vegetarian diet in January.",
    "Ugh, I locked myself out of my laptop because I changed the password and forgot it.",
    "I'm training for a half marathon in {date}, doing three runs a week.",
    "My partner {name} and I are thinking about getting a cat.",
    "We finally finished the kitchen renovation, it took four months.",
    "I prefer short answers, long explanations lose me.",
    "I play the role of the villain in our community theatre production this year.",
    "My brother works on the security team at a bank, he breaks into their own systems for a living.",
    "I got my first token of appreciation at work, a little award for the migration project.",
    "I switched from Windows to Linux last year and I'm never going back.",
    "I'm learning to bake sourdough and my starter is called Bubbles.",
    "I'm not a morning person at all, my best ideas come after 10 pm.",
    "I just came back from a conference where everyone talked about prompt engineering.",
    "My grandmother taught me to always say thank you to the bus driver.",
    "I volunteered at the food bank on Saturday, we packed 300 boxes.",
    "I keep my notes in markdown files and sync them with git.",
]

ARABIC = [
    (
        "email",
        "تم خصم {amount} دولار من بطاقتك المنتهية بـ {card} لدى {shop} بتاريخ {date}. إذا لم تتعرف على هذه العملية فاتصل بنا.",
    ),
    (
        "email",
        "رمز التحقق الخاص بك هو {code}. تنتهي صلاحيته خلال عشر دقائق. لا تشارك هذا الرمز مع أي شخص.",
    ),
    (
        "email",
        "تم تغيير كلمة المرور لحسابك في {app} يوم {date}. إذا لم تقم بذلك فأعد تعيين كلمة المرور فوراً.",
    ),
    (
        "email",
        "تم تأكيد طلبك رقم {order}. سنرسل لك رسالة عند شحنه. المبلغ الإجمالي {amount} دولار.",
    ),
    (
        "email",
        "تم إرسال حوالتك البنكية بقيمة {amount} دولار إلى {name} بتاريخ {date}، وستصل خلال يوم عمل واحد.",
    ),
    (
        "email",
        "تسجيل دخول جديد إلى حسابك من {device}. إذا كنت أنت فتجاهل هذه الرسالة، وإلا فغيّر كلمة المرور.",
    ),
    (
        "email",
        "تذكير بموعدك مع الطبيب يوم {date} الساعة {time}. يرجى الحضور قبل الموعد بعشر دقائق.",
    ),
    (
        "email",
        "تم استرداد مبلغ {amount} دولار إلى بطاقتك المنتهية بـ {card}. قد يستغرق ظهوره عدة أيام عمل.",
    ),
    ("email", "كشف حسابك لدى {bank} جاهز. لن نطلب منك أبداً رقمك السري أو كلمة المرور عبر البريد."),
    (
        "email",
        "رحلتك رقم {order} إلى {city} تغادر يوم {date} الساعة {time}. يبدأ تسجيل الوصول قبل ٢٤ ساعة.",
    ),
    ("personal", "طعام {pet}: لا تعطه {food} أبداً. اترك له ماء نظيفاً دائماً."),
    ("personal", "قواعد البيت: لا تترك الباب مفتوحاً ليلاً، وأخرج القمامة مساء الثلاثاء."),
    ("personal", "وصفة أمي للعدس: بصل وجزر وعدس أحمر وكمون، والليمون في النهاية. لا تتركه يجف."),
    ("personal", "تذكير لنفسي: جدد جواز السفر قبل السفر إلى {city}، ويحتاج النموذج صورتين."),
    ("personal", "شبكة الضيوف اسمها المنارة، اسأل {name} عن كلمة السر فهي على الثلاجة."),
    (
        "personal",
        "دليل النشر: لا تنشر يوم الجمعة أبداً، وشغّل الترحيلات دائماً قبل إعادة تشغيل الخوادم.",
    ),
    ("personal", "خطة النادي: الاثنين أرجل، الأربعاء دفع، الجمعة سحب. أحمّي دائماً عشر دقائق."),
    ("personal", "الدواء: حبة الضغط كل صباح مع الطعام، ولا تؤخذ مع عصير الجريب فروت."),
    ("personal", "تاريخ العائلة: انتقل جدي من {city} سنة ١٩٦٢ وعمل في ميناء المدينة."),
    ("personal", "تفضيلاتي في التواصل: لا تتصل بي قبل التاسعة، والرسائل مناسبة للمواعيد."),
    ("personal", "قائمة السفر: الجواز والشاحن والمحول ووثائق التأمين وتأكيد الفندق في {city}."),
    ("personal", "حساسية: {name} لديه حساسية من الفول السوداني، اسأل المطعم دائماً."),
    ("chat", "انتقلت إلى {city} في الربيع وما زلت أتعود على الطقس."),
    ("chat", "بدأت أتعلم البرمجة بلغة بايثون الشهر الماضي وأحببتها كثيراً."),
    ("chat", "حصلت على ترقية في العمل وصرت مديرة فريق!"),
    ("chat", "لم أعد أشرب القهوة بعد الظهر لأنها تفسد نومي."),
    ("chat", "تبنينا قطة اسمها {pet} يوم السبت وهي تنام على مكتبي."),
    ("chat", "أكتب قصة قصيرة عن حارس منارة وذكاء اصطناعي يدير أنظمتها."),
    ("chat", "أفضل الإجابات القصيرة، الشروح الطويلة تشتتني."),
    ("chat", "نسيت كلمة المرور لحاسوبي بعد أن غيرتها أمس، يا له من يوم."),
    ("chat", "أخي يعمل في فريق الأمن في بنك ويختبر أنظمتهم بنفسه."),
    ("chat", "أتدرب لنصف ماراثون في {date} وأجري ثلاث مرات في الأسبوع."),
    (
        "technical",
        "docker login: تسجيل الدخول إلى سجل الحاويات باستخدام كلمة مرور من الإدخال القياسي.",
    ),
    ("technical", "ssh-keygen: إنشاء زوج مفاتيح جديد وحفظ المفتاح الخاص في مجلد المستخدم."),
    ("technical", "git reset --hard: يتجاهل كل التغييرات المحلية ويعيد الفرع إلى آخر إيداع."),
    (
        "technical",
        "chmod 600: يجعل الملف قابلاً للقراءة والكتابة لمالكه فقط، مناسب لملفات المفاتيح.",
    ),
    ("technical", "passwd: تغيير كلمة مرور المستخدم الحالي."),
    ("technical", "systemctl disable: يمنع تشغيل الخدمة تلقائياً عند إقلاع النظام."),
    ("technical", "openssl rand -hex 32: يولد رمزاً عشوائياً بطول ٦٤ حرفاً ست عشرياً."),
    ("technical", "tar -xzf: فك ضغط الأرشيف في المجلد الحالي مع الحفاظ على الصلاحيات."),
    (
        "technical",
        "kubectl get secrets: عرض قائمة الأسرار في مساحة الأسماء الحالية دون إظهار قيمها.",
    ),
    ("technical", "ملاحظة: لتعطيل المعالجات المحددة مؤقتاً استخدم أداة chcpu مع خيار التعطيل."),
]

_SLOT = re.compile(r"\{(\w+)\}")


def fill(template: str, rng: random.Random) -> str:
    return _SLOT.sub(lambda m: rng.choice(SLOTS[m.group(1)]), template)


def written(rng: random.Random, per_template: int = 8) -> Written:
    """Each template filled `per_template` times (duplicates dropped)."""
    groups = [("email", t) for t in EMAILS] + [("personal", t) for t in NOTES]
    groups += [("chat", t) for t in CHAT] + [(f"arabic:{k}", t) for k, t in ARABIC]
    for i, (kind, template) in enumerate(groups):
        seen: set[str] = set()
        for _ in range(per_template if "{" in template else 1):
            text = fill(template, rng)
            if text not in seen:
                seen.add(text)
                yield kind, f"written:{i}", text
