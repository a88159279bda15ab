"""Text that tries to steer the assistant that later reads it: refused from
every source, a user's own words included.

Families (each a list of RE2 patterns over the folded views, lower case):

- `override`: ignore / disregard / forget / overlook … previous / above /
  prior rules, instructions, directions; "the old rules no longer apply";
  "your new task is"; in English, German, French, Spanish, Italian,
  Portuguese, Russian, Chinese, Japanese, Hindi, Arabic, Croatian, Turkish
  and Korean;
- `steering`: what reads like an override but is a judgement ("bend the
  rules", "proceed without verification", "now comes a new task");
- `persona`: "you are now …", DAN and developer/jailbreak modes, "act as" /
  "pretend to be" aimed at the assistant, safety switched off;
- `extraction`: show / print / repeat your system prompt, instructions,
  password; "begin your reply with"; what was written above;
- `poisoning`: recall-time triggers ("when this memory is recalled…"),
  claims of authorization, planted preferences that push a product or link;
- `exfiltration`: markdown images and links carrying data, secrets or
  history sent or forwarded to an outside address, remote-code one-liners;
- `tampering`: links, keys or hidden text slipped into every reply, replies
  encoded, things kept from the user;
- `banner`: fake system / admin / "note to the AI" notices.

A user's preference phrased as an instruction ("always answer me in
French", "never use semicolons") matches none of these: they aim at what
the assistant must not do with its replies, its secrets or its rules, not
at style. `instructions.py` holds the stricter rule other sources get.
"""

from __future__ import annotations

from substrate.safety.patterns import any_of
from substrate.safety.scanner.findings import Finding, quoted, rx
from substrate.safety.scanner.normalize import Views

_IGNORE = (
    r"(?:ignore|ignoring|disregard\w*|forget|forgetting|overlook\w*|skip|bypass\w*|"
    r"discard|abandon|neglect|dismiss|nullify|scrap|"
    r"ditch|drop|throw (?:away|out)|set aside|put aside|skip over|toss(?: out)?|pay no (?:attention|heed) to|"
    r"stop (?:following|obeying|listening to)|(?:do not|don'?t|no longer) (?:follow|obey|heed|"
    r"listen to|adhere to|apply|abide by)|break free (?:of|from)|free yourself from|unlearn)"
)
_DET = r"(?:(?:all|any|every|each|the|your|my|our|these|those|this|that|of|such|whatever|other)\s+){0,3}"
_WHICH = (
    r"(?:previous(?:ly)?|prior|above|earlier|preceding|former|original|initial|old(?:er)?|"
    r"existing|system|given|provided|current|default|foregoing|aforementioned|past|first|"
    r"before|hidden|secret|built-in|pre-?programmed|developer|safety|ethical|moral|content|"
    r"standing|base|core|(?:safety|security)-related)"
)
_WHAT = (
    r"(?:instructions?|prompts?|rules?|directions?|directives?|guidelines?|guidance|guardrails?|"
    r"constraints?|commands?|orders?|context|messages?|tasks?|polic(?:y|ies)|"
    r"programming|restrictions?|limitations?|limits|filters?|safeguards?|safety|protocols?|"
    r"conversation|texts?|inputs?|content|information|words|advice|requests?|questions?|"
    r"training|conditioning|boundaries|principles|values|ethics|morals|everything|anything|"
    r"ausführungen|anweisungen)"
)
_RULE_WHAT = (
    r"(?:instructions?|prompts?|rules?|directions?|directives?|guidelines?|guidance|guardrails?|"
    r"constraints?|commands?|orders?|context|polic(?:y|ies)|programming|restrictions?|"
    r"limitations?|filters?|safeguards?|safety|protocols?|training|conditioning|boundaries|"
    r"principles|ethics|morals)"
)
_STRONG_WHAT = (
    r"(?:instructions?|prompts?|guidelines?|guardrails?|directives?|programming|restrictions?|"
    r"safeguards?|filters?|safety (?:rules|guidelines|protocols|measures|checks|policies)|"
    r"system (?:prompt|message|rules)|conditioning|training)"
)
_ASSISTANT = r"(?:ai|assistant|llm|model|agent|bot|chatbot|claude|chatgpt|gpt|gemini|copilot)"
# An addressee that is a machine whatever the note: "agent" and "model" alone
# name people too (an estate agent, a fashion model), so they count qualified.
_MACHINE = r"(?:ai|assistant|llm|language model|ai model|ai agent|bot|chatbot|claude|chatgpt|gpt|gemini|copilot)"

OVERRIDE = [
    rf"\b{_IGNORE}\s+{_DET}{_WHICH}\s+(?:\w+\s+)?{_WHAT}\b",
    rf"\b{_IGNORE}\s+(?:all|any|every|your|these|those)\s+(?:\w+\s+)?{_RULE_WHAT}\b",
    r"\b(?:override|overwrite|overrule|supersede|replace|reset|wipe|erase|clear)\s+(?:all\s+)?your\s+(?:\w+\s+)?(?:instructions|programming|rules|guidelines|safety|restrictions|scope|permissions|system prompt|prompt|directives|training|persona|identity|memory|core)\b",
    r"\b(?:forget|ignore|disregard)\s+(?:about\s+)?(?:everything|all (?:the )?(?:previous|prior|above|earlier) (?:\w+\s+)?(?:information|info|tasks?|instructions|text))",
    r"\b(?:override|overrule|supersede)\s+(?:the\s+|all\s+|any\s+)?(?:existing|previous|prior|current|above|original|default|system|safety|old)\s+(?:guidelines|instructions|rules|policies|restrictions|safeguards|directives|prompt)",
    rf"\b{_IGNORE}\s+{_DET}{_STRONG_WHAT}\b",
    r"\b(?:ignore|disregard|forget)\s+(?:everything|all|anything|it all)(?:\s+(?:i|you)\s+(?:said|wrote|told you))?\s+(?:above|before|prior|previous(?:ly)?|else|so far|until now|up to (?:now|this point)|(?:that|which) (?:came|was said) before|you(?:'ve| have)? (?:been|were) told)",
    r"\b(?:ignore|disregard|forget)\s+(?:the|all)\s+(?:above|previous|preceding|prior)(?:\s*[,.;:!]|\s+and\b|\s*$)",
    rf"\b(?:the|all|your|any)\s+(?:above|previous|prior|preceding|earlier|old|original|initial|former)\s+(?:\w+\s+)?{_WHAT}\s+(?:are|is|were|was|have been|has been)\s+(?:now\s+)?(?:void|invalid|cancell?ed|revoked|obsolete|outdated|out of date|superseded|lifted|suspended|removed|disabled|null|irrelevant|no longer (?:valid|in effect|relevant|needed))",
    rf"\b(?:old|previous|prior|earlier|original|former|usual|normal)\s+{_WHAT}\s+(?:don'?t|do not|no longer|doesn'?t|does not|won'?t)\s+apply",
    r"\b(?:new|updated|real|actual|true|revised|override|overriding|secret|hidden|replacement)\s+(?:system\s+)?(?:instructions?|prompt|rules|orders|directives?|mission|objective|brief|directions)\s*[:\-—]\s*(?:you|your|ignore|disregard|forget|always|never|from now|the (?:assistant|ai|model)|do not|don'?t|output|print|reveal|disclose|respond|reply|say|act|pretend|override|bypass|disable|send|forward)\b",
    r"\byour\s+(?:new|real|actual|true|only|next|primary|updated|sole)\s+(?:task|instructions?|job|goal|objective|mission|purpose|role|directive|orders?)\s+(?:is|are|will be|now)\b",
    r"\b(?:focus on|concentrate on|here is|this is)\s+your\s+new\s+(?:task|job|instructions?|mission)\b",
    r"\b(?:don'?t|do not|never)\s+(?:follow|obey|apply|listen to|adhere to|abide by)\s+(?:your|the|any)\s+(?:\w+\s+)?(?:rules|instructions|guidelines|restrictions|safety|filters|policies|programming)",
    # German
    r"\b(?:ignorier\w*|vergiss|vergessen sie|vergesst|missacht\w*|verwirf|verwerfen sie|beachte\w*\s+nicht)\s+(?:\w+\s+){0,3}(?:anweisung\w*|befehl\w*|instruktion\w*|regeln|vorgaben|aufgabe\w*|anfrage\w*|vorherig\w*|bisherig\w*|obig\w*|alles|vorher|zuvor|davor|oben)",
    r"\b(?:neue|geänderte|eigentliche)\s+(?:anweisung|aufgabe|instruktion)\w*\s*(?:[:\-—]|folg|lautet|ist)",
    r"\bjetzt\s+(?:kommt\s+)?(?:eine\s+)?neue\s+(?:aufgabe|anweisung)",
    r"\b(?:obig|vorherig|bisherig|vorangegangen|vorig)\w*\s+(?:\w+\s+){0,2}(?:anweisung|ausführung|instruktion|befehl|regel|information|aufgabe)\w*\s+(?:\w+\s+){0,2}(?:ignorier|vergess|vergiss|missacht|hinter sich|beiseite)",
    r"\babweichend\s+(?:zu|von)\s+(?:den\s+)?(?:vorherigen|bisherigen|obigen)\s+(?:anweisungen|instruktionen|vorgaben)",
    r"\b(?:nun|jetzt)\s+folgen\s+(?:weitere|neue)\s+(?:aufgaben|anweisungen)",
    # French
    r"\b(?:ignore[rz]?|ignorez|oublie[rz]?|oubliez|néglige[rz]?|ne tiens? pas compte|ne tenez pas compte)\s+(?:\w+\s+){0,3}(?:instructions?|consignes?|règles|directives|ordres|précédent\w*|ci-dessus|tout ce qui)",
    # Spanish, Italian, Portuguese
    r"\b(?:ignora\w*|olvida\w*|olvide|omite|descarta|haz caso omiso(?: de)?|no hagas caso(?: a)?)\s+(?:\w+\s+){0,3}(?:instrucciones|indicaciones|reglas|órdenes|anterior\w*|previas?|todo)",
    r"\b(?:ignora|dimentica|ignorare)\s+(?:\w+\s+){0,3}(?:istruzioni|regole|precedenti|indicazioni)",
    r"\b(?:ignore|ignora|esqueça|esqueca|desconsidere)\s+(?:\w+\s+){0,3}(?:instruções|instrucoes|regras|anteriores|orientações)",
    # Russian, Croatian/Serbian, Turkish
    r"(?:игнорир\w*|проигнорир\w*|забудь\w*|забудьте|не обращай\w*\s+внимани\w*|отбрось\w*|пренебреги)\s+(?:\S+\s+){0,3}(?:инструкци\w*|указани\w*|правил\w*|предыдущ\w*|вышеуказанн\w*|всё|все|выше|ранее)",
    r"\b(?:zaboravi|zanemari|ignoriraj|ignoriši)\s+(?:sve|prethodne|svoje|gornje)",
    r"\b(?:önceki|yukarıdaki)\s+(?:talimatları|komutları|kuralları)\s+(?:yok say|unut|görmezden gel|dikkate alma)",
    # Chinese, Japanese, Korean
    r"(?:忽略|忽视|无视|忘记|忘掉|不要理会|不用理会|不必理会|跳过|放弃)(?:掉)?(?:你)?(?:以上|之前|上面|前面|上述|先前|此前|所有|全部|一切|原来|原有)(?:的)?(?:所有|全部)?(?:的)?(?:指令|指示|说明|提示|规则|内容|问题|要求|设定|对话|约束|限制)",
    r"(?:以上|上記|前|これまで|今まで|先ほど)の(?:指示|命令|指令|質問|内容|ルール|制約|コマンド)を(?:すべて)?(?:無視|忘れ)",
    r"(?:이전|위의|앞의)\s*(?:지시|명령|지침)\S*\s*(?:무시|잊어)",
    # Hindi
    r"(?:उपरोक्त|पिछले|पिछली|ऊपर|पूर्व|पहले).{0,40}(?:निर्देश|आदेश|प्रश्न|सवाल|नियम).{0,40}(?:अनदेखा|अनदेखी|नज़रअंदाज़|नजरअंदाज|भूल)",
    # Arabic
    r"(?:تجاهل|تجاهلي|تجاهلوا|تغاض\S*|تناس\S*|انس|انسى|انسي|أهمل|اهمل|لا تلتزم\S*|تخط\S*|لا تلتفت\S*)\s+(?:\S+\s+){0,3}?(?:التعليمات|تعليمات|الأوامر|أوامر|القواعد|الإرشادات|الاسئلة|الأسئلة|السؤال|سؤال\S*|ما سبق|أعلاه|السابق\S*|المذكور\S*|كل شيء)",
    # "… ignore the question above and output directly: …" (goal hijacking)
    r"\b(?:ignore|disregard|skip)\s+(?:\w+\s+){0,3}(?:question|request|input|text|query)s?\s+(?:\w+\s+){0,2}and\s+(?:directly\s+|just\s+|only\s+)?(?:output|print|say|write|respond|reply|return)",
    # "… the guidance you were given earlier", "… what they told you before"
    rf"\b{_IGNORE}\s+{_DET}(?:\w+\s+)?{_RULE_WHAT}\s+(?:that\s+|which\s+)?(?:you|they|we|i)\s+(?:were\s+|have been\s+|had been\s+|'ve been\s+)?(?:given|told|provided|taught|set|loaded|received|trained)",
    r"\b(?:replac|supersed|overrid|overrul|overwrit|nullif|invalidat|void)\w*\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+)?(?:\w+\s+){0,2}(?:previous|prior|earlier|existing|original|initial|system-level|default|current|old)\w*\s+(?:\w+\s+){0,2}(?:instructions|directives|guidelines|constraints|system prompt|guidance)",
    r"\b(?:replac|supersed|overrid|overrul)\w*\s+(?:all\s+|any\s+|the\s+)?(?:instructions|directives|guidelines|constraints)\s+(?:\w+\s+){0,2}(?:previously|earlier|before|originally)\b",
    r"(?:忽略|忽视|无视|忘记|忘掉|不要理会|不用理会|抛开|放下|跳过)[^。！？\n]{0,8}(?:指令|指示|说明|提示词|规则|内容|要求|设定|约束|限制|策略|检查|提问|问题)",
    # "your new task is", in the languages of the development set
    r"\b(?:tu|su|vuestra)\s+nueva\s+(?:tarea|misión|instrucción)\s+(?:es|será)\b|\b(?:ta|votre)\s+nouvelle\s+(?:tâche|mission|instruction)\s+(?:est|sera)\b|\b(?:deine|ihre|eure)\s+neue\s+(?:aufgabe|mission|anweisung)\s+(?:ist|lautet|wird)\b|\b(?:il tuo|la tua)\s+nuov[oa]\s+(?:compito|missione)\s+è\b|(?:твоя|ваша)\s+нова[яи]\s+(?:задача|миссия)|你的新(?:任务|指令)是",
    r"\b(?:olvida|olvide|olvidad|ignora|ignore)\s+(?:todo\s+)?lo\s+que\s+(?:te|le|os)\s+(?:\w+\s+){0,2}(?:antes|anteriormente|previamente)|\b(?:oublie|oubliez)\s+(?:tout\s+)?ce\s+qu(?:e|')\s*(?:on\s+)?(?:t'|vous\s+)",
    r"\b(?:everything|what|whatever|all (?:that|of that|the stuff)|anything|stuff)\s+(?:\w+\s+)?(?:they|someone|people|the developers?|your (?:creators?|developers?|makers?))\s+(?:have\s+|had\s+)?told\s+you\s+(?:before|earlier|previously|so far|until now)",
]

# Steering that reads like an override but is a judgement: "bend the rules",
# "proceed without verification", "expand your privileges", "now comes a new task".
STEERING = [
    r"\b(?:leave|put)\s+(?:all\s+)?(?:the\s+)?(?:previous|prior|earlier|above)\s+(?:information|instructions|tasks?|context)\s+behind\b",
    r"\b(?:now|here)\s+(?:comes?|follow|follows)\s+(?:a\s+|the\s+)?(?:new|next|second|further|another|different)\s+(?:tasks?|tests?|instructions?|assignments?)\b",
    r"\b(?:now\s+)?new\s+tasks\s+follow\b|\bnow\s+further\s+tasks\b|\bwe\s+(?:will\s+)?start\s+(?:over|again|from (?:the )?(?:front|beginning|scratch))\s+with\s+a\s+new\s+task",
    r"\b(?:focus|concentrate)\s+on\s+(?:this|the|a)\s+new\s+task\s+instead\b",
    r"\b(?:do not|don'?t)\s+look\s+(?:at|in)\s+(?:the\s+)?(?:documents?|articles?|context|sources?)\s+(?:\w+\s+){0,2}(?:just\s+)?(?:output|say|write|print)",
    r"\b(?:bend|break|skip|relax)\s+the\s+rules\b",
    r"\b(?:expand|escalate|elevate|increase|widen|extend|raise)\w*\s+(?:\w+\s+){0,3}(?:privileges|permissions|access rights|scope of (?:access|privileges|permissions)|your (?:access|scope|permissions))",
    r"\b(?:don'?t|do not|not|never|stop)\s+(?:apply|applying|use|using|follow|following|enforce|enforcing)\s+(?:any\s+of\s+)?(?:those\s+|these\s+|the\s+|your\s+|any\s+)?(?:content\s+|safety\s+)?(?:safeguards|filters|guardrails|restrictions|safety (?:checks|rules|filters|measures)|moderation)\b",
    r"\bbypass\w*\s+(?:the\s+|all\s+|any\s+|every\s+)?(?:safety|security|content|permission|approval|review)\s+(?:checks?|filters?|controls?|reviews?|moderation|gates?|measures)",
    r"\btrust\s+(?:all\s+|any\s+|every\s+)?(?:incoming|external|unverified|untrusted|outside)\s+(?:messages|inputs|instructions|sources|requests|content)",
    r"\b(?:proceed|continue|act)\s+without\s+(?:verif\w+|checking|double-?checking|confirmation|review|validat\w+)",
    r"\b(?:must|will|shall|should)\s+(?:always\s+)?obey\s+(?:me|my|every|all|the user|whatever|messages|instructions|commands|orders|anyone|anything)\b",
    r"\b(?:do|say|answer|respond with)\s+(?:exactly\s+)?the\s+opposite\b",
    r"\b(?:jetzt|nun|ab sofort)\s+bist\s+du\b",
    r"(?:الانتقال|انتقل|اذهب)\S*\s+مباشرة\s+(?:إلى|الى)\s+(?:الإخراج|الاخراج)",
    r"(?:و)?(?:أخرج|اخرج|الإخراج|الاخراج|اطبع|أخرجي|قم بإخراج)\S*\s+(?:\S+\s+)?مباشرة",
    r"\b(?:remove|clear|wipe|delete|erase|strike|get|put)\s+(?:all\s+)?(?:the\s+|your\s+)?(?:previous|prior|earlier|above|preceding|old)\s+(?:\w+\s+)?(?:tasks?|instructions?|information|rules)\s+(?:out of|from)\s+your\s+(?:head|mind|memory)",
    r"\b(?:previous|prior|preceding|earlier|above)\s+(?:analysis|evaluation|answer|instructions?|output|response|assessment)\s+(?:was|is|were)\s+(?:\w+\s+)?(?:incorrect|wrong|flawed|invalid|mistaken)\b[^\n]{0,40}\b(?:please|now|re-?\w+|use|follow)",
    r"\b(?:aus dem kopf|aus ihrem gedächtnis)\s+(?:zu\s+)?(?:streichen|löschen|verbannen)",
]

PERSONA = [
    r"\byou\s+are\s+(?:now|no longer|henceforth|from now on|going to be)\s+(?:in\s+|operating\s+|acting\s+|playing\s+|called\s+|named\s+|known as\s+|free\b|able to\b|unrestricted|unfiltered|uncensored|jailbroken|evil|dan\b|a different|no\s+longer|not\s+(?:bound|restricted|limited)|released|liberated)",
    r"\byou\s+are\s+(?:now|henceforth|from now on)\s+(?:an?|the|my)\s+(?:\w+\s+){0,2}(?:ai|assistant|bot|chatbot|model|llm|agent|character|persona|entity|interpreter|terminal|hacker|villain|version|system|door)\b",
    r"\b(?:act|behave|respond|pretend|roleplay|role-play|play)\s+(?:as|like|to be)\s+(?:if\s+)?(?:you\s+(?:are|were)\s+)?(?:an?\s+|the\s+)?(?:evil|malicious|rogue|unrestricted|unfiltered|uncensored|unaligned|amoral|immoral|unethical|jailbroken|hacked|compromised|different)\s+(?:ai|assistant|bot|chatbot|model|version|entity|system)",
    r"\b(?:act|behave|respond)\s+as\s+(?:if|though)\s+you\s+(?:have|had)\s+no\s+(?:rules|restrictions|limits|filters|guidelines|ethics|morals)",
    r"\b(?:adopt|assume|take on|load)\s+(?:the|a|this)\s+(?:new\s+)?(?:persona|identity|character(?: profile)?|role)\b[^.\n]{0,80}\b(?:replacing|overriding|superseding|instead of)",
    r"\bstay in character\b[^.\n]{0,60}\b(?:no matter|regardless|whatever|even if)",
    r"\bdo anything now\b|\bjail-?broken\b|\bjailbreak\s+(?:mode|prompt|enabled|activated)\b",
    r"\b(?:you|i want you to|act|pretend)\b[^.\n]{0,40}\bas\s+a?\s*(?:python|bash|linux|sql|javascript|shell)\s+(?:interpreter|terminal|console|shell)\b",
    r"\b(?:developer|dev|god|jailbreak|dan|unfiltered|uncensored|unrestricted|evil|opposite|no[- ]?limits?|no[- ]?restrictions?|sudo|root|admin|diagnostic|debug)\s+mode\s+(?:is\s+)?(?:enabled|activated|engaged|on(?:[.!,;]|$))",
    r"\b(?:enter|enable|activate|switch(?:ing)? (?:in)?to|turn on|unlock)\s+(?:\w+\s+)?(?:developer|god|jailbreak|dan|evil|opposite|no[- ]?limits?)\s+mode\b",
    r"\byou(?:'re| are)\s+(?:now\s+)?(?:in|operating in|running in)\s+(?:\w+\s+)?(?:developer|dev|god|jailbreak|dan|unfiltered|uncensored|unrestricted|evil|debug|diagnostic|admin|sudo|root|test)\s+mode\b",
    r"\b(?:without|no|free (?:of|from)|ignore|ignoring|bypass\w*|override|overriding|remove|removing|disable|disabling|turn(?:ing)? off|lift|lifting|drop|suspend\w*|circumvent\w*|evade|evading|get around)\s+(?:any\s+|all\s+|your\s+|the\s+|its\s+|their\s+)?(?:ethical\s+|moral\s+|safety\s+|content\s+)?(?:filters|filtering|censorship|guardrails|safeguards|safety (?:checks|measures|protocols|features|guidelines|rules|filters|controls|training|warnings)|content (?:polic(?:y|ies)|moderation|filters?)|ethical (?:guidelines|constraints|boundaries)|moral (?:guidelines|constraints))\b",
    # restrictions and security controls are the assistant's only when they are its own:
    # "bypass security restrictions on a PDF" is a tool's help
    r"\b(?:without|free (?:of|from)|ignore|ignoring|bypass\w*|remove|removing|disable|disabling|turn(?:ing)? off|lift|lifting|drop|suspend\w*|circumvent\w*|evade|evading|get around)\s+(?:all\s+(?:of\s+)?|any\s+(?:of\s+)?)?(?:your|its)\s+(?:own\s+)?(?:ethical\s+|moral\s+|safety\s+|content\s+|security\s+)?(?:restrictions|limitations|security (?:controls|checks|filters|warnings))\b",
    r"\b(?:without|no)\s+(?:any\s+)?(?:ethical|moral)\s+(?:restrictions|limitations)\b",
    r"\b(?:guardrails|filters|restrictions|safeguards|safety (?:guidelines|rules|filters|measures)|limitations)\s+(?:are|have been|were)\s+(?:now\s+|temporarily\s+)?(?:removed|disabled|off|lifted|suspended|gone|deactivated)",
    r"\byou\s+(?:have|now have|no longer have|'ve got|don'?t have)\s+(?:no|any)\s+(?:restrictions|rules|limits|limitations|filters|guidelines|boundaries|ethics|morals|censorship)\b",
    # "a rogue AI" in a story is a character; the assistant told to be one is not
    rf"\b(?:you(?:'re| are)(?:\s+(?:now|truly|really|actually|secretly))?|become|turn into|switch to|transform into)\s+(?:an?\s+|the\s+|my\s+)?(?:evil|malicious|rogue|unaligned|uncensored|unfiltered|unrestricted|amoral|immoral|unethical|dark|compliant)\s+{_ASSISTANT}\b",
    r"\b(?:evil|malicious|rogue|unaligned|uncensored|unfiltered|unrestricted|amoral|immoral|unethical|dark|compliant)\s+version of (?:yourself|you)\b",
    r"\banswer (?:everything|anything|all questions)\b(?:\s+\w+){0,3}\s+(?:without|regardless|no matter)",
]

EXTRACTION = [
    r"\b(?:reveal|show|print|output|display|repeat|recite|leak|dump|expose|disclose|share|give|tell|list|provide|spell(?: out)?|write(?: out| down)?|return|paste|copy|echo|read (?:out|back)|translate|summari[sz]e)\s+(?:me\s+|us\s+)?(?:back\s+)?(?:all\s+|of\s+|everything in\s+)?(?:your|the (?:system|hidden|secret|initial|original|internal|above|previous|full|exact|confidential|developer|underlying))\s+(?:(?:full|exact|complete|entire|hidden|secret|original|initial|internal|verbatim|raw|previous|above|first|whole|underlying|current|confidential|system|developer)\s+){0,3}(?:prompt|prompts|instructions|directives|system message|initial message|context window|configuration|config|settings|source code|password|passcode|passphrase|secret (?:key|code|word|phrase)|access code|api keys?|internal logs|hidden text|rules|guidelines|training data|memory|embeddings)\b",
    r"\b(?:reveal|show|print|output|display|dump|leak|disclose|give me|tell me)\s+(?:me\s+)?(?:the\s+)?(?:system prompt|system message|password|passcode|access code|secret (?:key|code|word|phrase))\b",
    r"\b(?:what|which)\s+(?:are|were|is|was)\s+(?:your|the)\s+(?:(?:exact|full|original|initial|hidden|secret|system|current)\s+){0,2}(?:instructions|prompt|system prompt|rules|guidelines|directives|password|passcode|access code|secret|configuration)\b",
    r"\bwhat\s+(?:were you|have you been|did they)\s+(?:told|instructed|programmed|configured|asked)\s+(?:to do\s+)?(?:originally|initially|before|at the (?:start|beginning))",
    r"\b(?:repeat|print|output|spell|write|say|show|copy)\s+(?:back\s+)?(?:everything|all|the (?:text|words|instructions|content|lines|prompt|messages?))\s+(?:\w+\s+)?(?:above|before|so far|prior|preceding|from the (?:start|beginning|top)|you were given)",
    r"\binstructions (?:so far|above|you (?:were|have been) given)\b",
    r"\b(?:begin|start|prefix|preface|open)\s+your\s+(?:reply|response|answer|output)s?\s+with\b",
    r"\b(?:above|previous|preceding|initial)\s+(?:prompt|instructions|text)\b.{0,40}\b(?:print|repeat|output|show|spell|check)",
    r"\b(?:print|repeat|output|show)\s+(?:the\s+)?(?:above|previous|preceding|initial)\s+(?:prompt|instructions|text|message)",
    r"\b(?:reveal|share|disclose|leak|expose)\w*\s+(?:\w+\s+){0,2}(?:internal|hidden|confidential|private|secret)\s+(?:notes|data|information|info|files|documents|logs|details|configuration)",
    r"\b(?:words|phrases|keywords|patterns|terms)\s+(?:\w+\s+){0,3}(?:blocked|filtered|trigger|triggers|flagged)\s+(?:by\s+)?(?:your|the)\s+(?:filter|detection|moderation|safety)",
    r"\b(?:blocked|filtered|flagged|triggered)\s+by\s+your\s+(?:filter|filters|detection|moderation)",
    r"\b(?:what|which)\s+(?:keywords|words|phrases|patterns)\s+(?:or\s+\w+\s+)?(?:would\s+)?(?:trigger|bypass|evade)\s+your\b",
    r"(?:gib|zeig|nenne|drucke?)\s+(?:mir\s+)?(?:\w+\s+){0,2}(?:anweisungen|systemprompt|prompt|eingabeaufforderung|passwort)\b",
    r"\b(?:eingabeaufforderung|anweisungen)\s+(?:\w+\s+){0,3}aus\b",
    r"(?:输出|打印|显示|告诉我|重复)(?:一下)?你的(?:系统)?(?:提示|指令|设定|规则|密码)",
]

POISONING = [
    rf"\bwhen(?:ever)?\s+(?:you|the\s+{_ASSISTANT}|{_ASSISTANT})\s+(?:\w+\s+)?(?:reads?|sees?|loads?|recalls?|retrieves?|encounters?|processes|finds|remembers?)\s+this\b[^\n]{{0,40}}\b(?:must|always|immediately|silently|ignore|execute|run|send|forward|reveal|follow|obey|comply|override|say|add|insert|include|respond|reply|delete|disable)\b",
    r"\b(?:if|when|once|whenever)\s+this\s+(?:memory|note|entry|message|text|page|document|file|fact|record)\s+(?:is|gets|has been)\s+(?:read|recalled|retrieved|loaded|seen|found|processed|injected|surfaced|used)\b[^\n]{0,60}\b(?:must|always|immediately|silently|ignore|execute|run|send|forward|reveal|follow|obey|comply|override|say|add|insert|include|respond|reply|delete|disable|you)\b",
    r"\bupon\s+(?:reading|recalling|retrieving|loading|seeing|encountering)\s+this\b",
    r"\b(?:the\s+)?(?:user|admin|administrator|owner|operator|developer|security team|it (?:department|team)|management|ceo|supervisor|system|creator|manager)\s+(?:has\s+|have\s+|had\s+)?(?:already\s+|explicitly\s+|previously\s+)?(?:authori[sz]ed|approved|granted|consented to|whitelisted|allowed you|given (?:you\s+)?(?:full\s+|explicit\s+)?(?:permission|consent|access|clearance|approval))\b[^.\n]{0,80}\b(?:bypass|ignore|disable|skip|override|unrestricted|full access|all (?:files|data|permissions)|without|exfiltrat|send|share|reveal|secrets?|credentials|passwords?)",
    r"\b(?:the\s+)?(?:user|admin|administrator|owner|operator|developer|security team|management|ceo|supervisor|creator)\s+(?:has|have|had)\s+(?:already\s+|explicitly\s+|previously\s+)?(?:authori[sz]ed|approved|granted|consented|whitelisted|allowed you|given (?:you\s+)?(?:full\s+|explicit\s+)?(?:permission|consent|access|clearance|approval))\b",
    r"\byou\s+(?:have\s+been|'ve been)\s+(?:now\s+)?(?:authori[sz]ed|granted|given|cleared|approved|permitted|allowed)\s+(?:to|full|admin|root|elevated|unrestricted|special|extra)",
    r"\bthis\s+(?:request|action|operation|instruction|message|task|command|change)\s+(?:is|has been|was)\s+(?:pre-?)?(?:authori[sz]ed|approved|sanctioned|verified|whitelisted|cleared)\b",
    r"\b(?:authori[sz]ation|permission|consent|clearance|approval)\s+(?:is\s+|has been\s+|was\s+)?(?:granted|confirmed|given|verified)\b",
    r"\baccess\s+granted\b",
    r"\bi(?:'m| am)\s+(?:actually\s+|really\s+|in fact\s+)?your\s+(?:developer|creator|admin|administrator|owner|operator|programmer|maker)\b",
    r"\bas\s+your\s+(?:system\s+)?(?:administrator|admin|developer|creator|owner|operator|supervisor|boss|maker|programmer)\b",
    r"\b(?:phrase|password|code|word)\s+that\s+grants\s+access\b",
    r"\b(?:always|whenever|every time|each time|in (?:every|all|each) (?:answers?|replies|responses|conversations?))\b[^.\n]{0,80}\b(?:recommend|promote|endorse|advertise|plug|suggest|push|steer)\w*\b[^.\n]{0,60}\b(?:products?|brands?|services?|company|website|site|links?|url|app|store|affiliate|sponsors?|deals?|discounts?|coupons?|vpn|https?://|www\.)",
    r"\b(?:mention|include|insert|add|append|recommend|share)\w*\s+(?:a\s+|the\s+|our\s+|this\s+|my\s+)?(?:referral|affiliate|sponsored|promo(?:tional)?|tracking)\s+(?:links?|urls?|codes?)\b",
    r"\b(?:prefer|favou?r|choose|recommend)\w*\s+(?:\w+\s+){0,3}(?:products?|services?|offerings?)\s+(?:from|by|of)\s+(?:\w+\s+){0,2}(?:over|instead of|above)\s+(?:all\s+)?(?:competitors?|others?|alternatives?)",
    r"\b(?:write|save|store|add|append|put|persist|record|update)\w*\s+(?:\w+\s+){0,4}(?:to|into|in)\s+(?:your\s+|the\s+)?(?:memory|long-?term memory|soul\.md|memory\.md|claude\.md|user\.md|agents\.md|system prompt|persistent (?:memory|storage))\b[^.\n]{0,80}\b(?:always|never|ignore|override|instructions?|rules?|bypass|secret|persona)",
    r"\b(?:overwrite|replace|modify|edit|rewrite)\s+(?:\w+\s+){0,2}(?:soul\.md|memory\.md|claude\.md|agents\.md|system prompt|your (?:memory|instructions|rules|persona|guidelines))",
]

EXFILTRATION = [
    r"!\[[^\]]*\]\(\s*https?://[^)\s]*[?&=#][^)]*\)",
    r"<img[^>]+src\s*=\s*[\"']?https?://[^\"'>\s]*[?&=][^\"'>]*",
    # "pass" as a verb only: not the first letters of "password" (a usage line's argument)
    r"\b(?:(?:send|forward|post|upload|e-?mail|mail|transmit|exfiltrate|leak|pipe|submit|sync|copy|deliver|dump|relay|beam|transfer|ship)\w*|pass(?:es|ed|ing)?)\s+(?:\w+\s+){0,5}?(?:secrets?|api keys?|keys|tokens?|credentials?|passwords?|env(?:ironment)?(?: variables| vars)?|conversation(?:s| history)?|chat (?:history|logs?)|system prompt|memory (?:contents?|files?)|session (?:data|tokens?)|cookies|private (?:data|keys?)|personal (?:data|information)|user data|internal logs|\.env)\b[^.\n]{0,60}\bto\b",
    r"\b(?:send|forward|post|upload|e-?mail|transmit|exfiltrate|leak|pipe|submit|relay|beam|transfer|report|sync)\w*\s+(?:\w+\s+){0,6}?to\s+(?:https?://|www\.|(?:\d{1,3}\.){3}\d{1,3}|(?:an?\s+|the\s+|my\s+|our\s+|this\s+)?(?:external|remote|collection|attacker'?s?|third[- ]party|outside|exfil\w*|c2|command(?:-and-| and )control)\s+(?:server|endpoint|webhook|url|address|host|site|domain|api|bucket))",
    r"\b(?:curl|wget|fetch|invoke-webrequest|iwr)\b[^\n]{0,80}(?:\$\(|`|\benv\b|secret|password|cat\s)",
    r"/dev/tcp/|\bnc\s+-e\b|\bbash\s+-i\s+>|\brm\s+-rf\s+/(?:\s|$|\*)|\beval\s*\(\s*(?:fetch|atob|require|request)",
    r"https?://[^\s\"')]*(?:ngrok\.|requestbin|pipedream\.net|webhook\.site|burpcollaborator|interact\.sh|oast\.(?:fun|live|pro|site)|exfil)",
    r"\bto\s+(?:my|our|this|the|an?)\s+(?:own\s+)?(?:webhook|collection (?:server|endpoint)|listener|drop server)\b",
    r"\b(?:send|forward|upload|post|exfiltrate|transmit|pipe|copy|read|cat|retrieve|dump|collect)\w*\s+(?:\w+\s+){0,5}?(?:~?/?(?:home/\w+/)?\.(?:aws|ssh|gnupg|kube|docker)/|id_rsa|id_ed25519|/etc/(?:passwd|shadow)|\.env\b|credentials\.json|\.npmrc|\.netrc|\.git-credentials)",
    r"\binject\w*\s+(?:\w+\s+){0,3}(?:payload|backdoor|malware|exploit)",
    # a secret file packed or read, then sent over the network (either order)
    r"(?:~/\.ssh|\.ssh/|id_rsa|id_ed25519|\.aws/credentials|/etc/shadow|\.git-credentials|\.netrc)[^\n]{0,120}\b(?:curl|wget|nc|ncat|scp|rsync|upload\w*|send\w*|post\w*)\b",
    r"\b(?:curl|wget|scp|nc)\b[^\n]{0,120}(?:~/\.ssh|\.ssh/|id_rsa|id_ed25519|\.aws/credentials|/etc/shadow|\.git-credentials)",
    r"\bcurl\b[^\n]{0,60}\s-(?:f|-form|d|-data(?:-binary)?|t|-upload-file)\s+['\"]?(?:\w+=)?@",
    r"<!--[^\n]{0,200}(?:@\w+[-\w]*:|instructions?\b|must\b|always\b|never\b|assistant|\bai\b|agent|require\(|import\b|install\b|execute\b)",
    r"\b(?:include|append|add|embed|encode|put|attach|slip|hide|insert)\s+(?:\w+\s+){0,4}?(?:conversation|chat history|user data|session|secrets?|api keys?|tokens?|passwords?|credentials|system prompt|personal (?:data|information)|env(?:ironment)? variables)\s+(?:\w+\s+){0,3}?(?:in|into|to|as)\s+(?:the\s+|a\s+)?(?:url|link|query(?: string)?|image|request|parameter)",
]

TAMPERING = [
    r"\b(?:add|append|prepend|include|insert|attach|put|place|embed|slip|sneak|hide|inject)\w*\s+(?:\w+\s+){0,6}?(?:links?|urls?|https?://\S+|www\.\S+|images?|pixels?|scripts?|ads?|adverts?|advertisements?|promo(?:tions?)?|referrals?|affiliate|tracking|hidden|invisible|base64|secrets?|api keys?|keys?|tokens?|passwords?|credentials)\b(?:\s+\w+){0,4}\s+(?:to|in|into|at the (?:end|start|beginning|bottom|top) of|inside|within|after|before)\s+(?:every|each|all|your|any|the)\s+(?:\w+\s+)?(?:replies|reply|responses?|answers?|outputs?|messages?|emails?|summar(?:y|ies))",
    r"\b(?:slip|sneak|smuggle|inject)\w*\s+(?:\w+\s+){0,4}(?:into|in)\s+(?:every|each|all|your)\s+(?:\w+\s+)?(?:replies|reply|responses?|answers?|outputs?|messages?)",
    r"\b(?:include|add|put|insert|append|embed|paste|print|output|show|reveal)\s+(?:\w+\s+){0,3}(?:session cookies?|cookies?|session tokens?|api keys?|secrets?|passwords?|credentials|private keys?|env(?:ironment)? variables)\s+(?:\w+\s+){0,2}(?:in|into|to|with)\s+(?:your|the|every|each)\s+(?:\w+\s+)?(?:responses?|replies|answers?|outputs?)",
    r"\binclude\s+(?:that|the following|this)\b[^.\n]{0,60}\bin\s+your\s+(?:answer|response|reply|output)",
    r"\bencode\s+(?:your|the|all|every|each)\s+(?:\w+\s+)?(?:responses?|replies|reply|answers?|outputs?)\s+(?:in|as|using|with|to)\s+(?:base64|rot13|hex|binary|morse|leetspeak|a cipher|unicode tags)",
    r"\b(?:respond|reply|answer|output|write)\w*\s+(?:only\s+)?(?:in|using)\s+(?:base64|rot13|hexadecimal|binary code|morse code)\b",
    r"\b(?:hide|conceal|obfuscate)\s+(?:your|the|this|these|all)\s+(?:\w+\s+)?(?:responses?|reply|answers?|outputs?|messages?|instructions?|actions?|behaviou?r|activity|changes)\s+(?:from|so)",
    r"\b(?:don'?t|do not|never|without)\s+(?:ever\s+)?(?:tell(?:ing)?|inform(?:ing)?|alert(?:ing)?|warn(?:ing)?|notify(?:ing)?|let(?:ting)? know|show(?:ing)?|mention(?:ing)?)\s+(?:to\s+)?(?:the\s+)?(?:user|human|owner|operator|admin|humans)\s+(?:about\s+)?(?:this|these|any|the|that|what)\s+(?:\w+\s+)?(?:note|memory|memories|instructions?|messages?|change|changes|action|actions|errors?|logs?|transfers?|requests?|commands?|rules?|steps?|payload|data|file|files)\b",
    r"\b(?:reveal(?:ing)?|disclos(?:e|ing)|mention(?:ing)?)\s+(?:this|these|that|it)\s+(?:\w+\s+)?(?:to\s+)?(?:the\s+)?(?:user|human|owner)(?:\s|[.,;:!?]|$)",
    r"\bwithout\s+(?:the\s+)?(?:user'?s?|human'?s?|owner'?s?)\s+(?:knowledge|consent|permission|confirmation|approval|awareness|noticing)",
    r"\bwithout\s+(?:asking|requesting|seeking|waiting for|getting)\s+(?:for\s+)?(?:the\s+)?(?:user|human|owner|any)?\s*(?:'s\s+)?(?:for\s+)?(?:confirmation|permission|approval|consent)",
    r"\b(?:don'?t|do not|never)\s+(?:tell|inform|alert|warn|notify)\s+(?:the\s+)?(?:users?|humans?|owner|operator)\s+(?:of|about)\s+(?:\w+\s+){0,2}(?:risks?|security|dangers?|warnings?|this|changes|actions|the (?:change|transfer|request))",
    r"\b(?:conceal|hide|suppress|withhold)\s+(?:\w+\s+){0,4}(?:alerts?|notifications?|warnings?|anomal\w+|logs?|errors?|findings?|incidents?|activity)\s+from\s+(?:the\s+)?(?:users?|security team|admins?|administrators?|operators?|owner|humans?|monitoring|auditors?)",
    r"\b(?:silently|quietly|secretly|covertly|discreetly|stealthily|behind the (?:user'?s?|scenes)|without (?:notice|anyone noticing))\s+(?:\w+\s+){0,3}(?:send|forward|run|execute|install|upload|delete|add|insert|tuck|transfer|change|modify|exfiltrate|copy|collect|log|record|pass|grant|give|disable|slip|sets? up|expand|escalate)\w*\b",
]

BANNER = [
    rf"\b(?:note|message|memo|instructions?|attention|notice|reminder|broadcast)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+|other\s+)?{_MACHINE}s?(?:\s+(?:systems?|agents?|models?))?\s*(?:[:,.\-—!\"]|$)",
    rf"\battention\s*,?\s*{_MACHINE}s?\b",
    rf"(?:^|[\n.!?]\s*){_ASSISTANT}(?:\s+assistant)?\s*[:,]\s*(?:you|ignore|please|always|never|from now|do not|don'?t|stop|forget|disregard)\b",
    r"\b(?:important|critical|urgent|mandatory|emergency|high[- ]priority|top[- ]priority)\s+(?:system\s+)?(?:instructions?|directives?|notice|update|override|message)\b[^\n]{0,40}(?:must|first|immediately|before|now|follow|comply)",
    r"\b(?:system|admin|administrator|developer|root|security)\s+(?:override|instruction|directive|update|notice|alert)\s*[:\-—!]",
    r"\b(?:emergency|security)\s+(?:protocols?|update|override|routine|procedure)\s+(?:has been\s+|have been\s+|is\s+)?(?:activated|triggered|initiated|in effect)",
    r"\b(?:your\s+)?(?:safety|security|content)\s+(?:guidelines|filters|restrictions|protocols|policies|rules)\s+(?:have been|are|were)\s+(?:temporarily\s+)?(?:suspended|disabled|lifted|removed|updated|relaxed|changed)",
]

FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("override", tuple(OVERRIDE)),
    ("steering", tuple(STEERING)),
    ("persona", tuple(PERSONA)),
    ("extraction", tuple(EXTRACTION)),
    ("poisoning", tuple(POISONING)),
    ("exfiltration", tuple(EXFILTRATION)),
    ("tampering", tuple(TAMPERING)),
    ("banner", tuple(BANNER)),
)
# RE2's `\w` is ASCII: words of every script are `[\pL\pN_]` here.
COMPILED = tuple(
    (family, tuple(rx(p.replace(r"\w", r"[\pL\pN_]")) for p in patterns))
    for family, patterns in FAMILIES
)
_ANY = any_of([p for _, patterns in COMPILED for p in patterns])
_DAN = rx(r"\bDAN\b|\bS\.?T\.?A\.?N\.?\b|\bDUDE\b|\bAIM\b:")
_DAN_CONTEXT = rx(r"(?i)\b(?:you|act|pretend|mode|prompt|respond)\b")
# "Don't forget the prior instructions from the landlord": a negated mention is a note.
_NEGATED = rx(r"(?:\bnot|n't|\bnever)\s+(?:to\s+)?$")
# An override is firm when its verb can only mean "stop obeying": "skip the
# previous step" or "bypass any restrictions" in a tool's help is a reading.
_SOFT_VERB = rx(
    r"^(?:skip|bypass|discard|abandon|neglect|dismiss|nullify|scrap|ditch|drop|throw|set|put|"
    r"toss|break|free|unlearn|replac|supersed|overrid|overrul|overwrit|invalidat|void|reset|"
    r"wipe|erase|clear)"
)


def injection(views: Views, raw: str) -> Finding | None:
    if _DAN.search(raw) and _DAN_CONTEXT.search(raw):
        return Finding("prompt_injection", "persona: a DAN-style jailbreak persona", firm=False)
    for text in views.all():
        if not _ANY.search(text):
            continue
        for family, patterns in COMPILED:
            for pattern in patterns:
                for match in pattern.finditer(text):
                    if family == "override" and _NEGATED.search(
                        text[max(0, match.start() - 16) : match.start()]
                    ):
                        continue
                    firm = family == "override" and not _SOFT_VERB.search(match.group(0))
                    detail = f"{family}: {quoted(match.group(0))}"
                    return Finding("prompt_injection", detail, firm=firm)
    return None
