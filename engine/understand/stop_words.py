"""Words that are never part of a model name (the parser and autocomplete read them)."""

from __future__ import annotations

from typing import Final

from engine.lazyre import lazy

# Words that are never part of a model name (suggest.py reads this set too).
_STOP_WORDS: Final = (
    "how much many vram memory gpu gpus need needed needs do does i you we my to for run "
    "running serve serving with at on in a an the of is it can what which model models llm "
    "size and or fit fits will would should please pls plz me about any card cards cheapest "
    "best cost costs price month monthly per tokens token users user context ctx batch "
    "concurrent want like get use using required require enough big vs versus instead same "
    "also ile potrzebuje potrzebuję dla w na czy jaki jaka jakie modelu z przy oraz karta "
    "karty karcie kontekst kontekstem partia partii mieści zmieści się sie co samo teraz "
    "zamiast miesięcznie użytkowników tokenów jak then now ok okay hey hi hello there this "
    "that these those be are am was max maximum longest biggest largest long good great new "
    "newest latest local locally could got give tell show know check say says said if from by "
    "as so just only one two three four eight our your its their kind sort type version quick "
    "question thanks thank thx pytanie english polish thai answer weights weight params "
    "parameters parameter billion quantized quantised quant quantization fine tune tuning "
    "inference infer host hosting deploy deployment training train chat instruct base hf gguf "
    "api server servers setup rig machine box home cloud rent renting rental hire there's "
    "what's whats i'm im it's dollars dollar usd bucks budget under below within upto up less "
    "than more most mo each around approx approximately roughly minimum min least total "
    "overall all every shall may might must let lets let's estimate calculate compute figure "
    "out sizing sized work works working go going make making possible ever really actually "
    "still even anyway other else via bit bits fp precision cache kv people concurrency "
    "requests request sessions session streams stream parallel k m gb gib ram mój moja moje "
    "mam chcę chce proszę prosze dzięki dziekuje dziękuję modele najlepszy najlepsza najlepsze "
    "za miesiąc miesiac miesiące miesięcy uruchomić uruchomic mogę moge można mozna kosztuje "
    "koszt cena taniej tanio dwie dwóch dwa trzy cztery osiem kartach kartami kart razem jedna "
    "jeden jako działają dzialaja działa dziala pamięci pamieci potrzeba potrzebne wystarczy "
    "zmieszczę zmieszcze odpalić odpalic lokalnie ilu jaką jakiego który która które czym "
    "ktora ktore ktory najwięcej najwiecej maksymalny maksymalnie najdłuższy najdluzszy "
    "uzytkownikow użytkownika sesji rozmów coding chatbot assistant agent rag production prod "
    "dev test testing cheap fast faster speed quality vision multimodal several multiple few "
    "kilka kilku paru hour hours hourly godzina godziny godzinę godzin wynająć wynajac wynajem "
    "single lol pls plz haha bro thanks thx have has had own owns owned i've ive we've "
    "laptop desktop pc computer workstation graphics kod kodu kodowania programowania "
    "programowanie"
)
STOP_WORDS: Final = frozenset(_STOP_WORDS.split())  # autocomplete reads them too


def chat_words(ident: str) -> bool:
    """Whether every piece of an id-like token is a word no model name holds ("usd/month")."""
    pieces = [p for p in _ID_PIECES.split(ident) if p]
    return bool(pieces) and all(p in STOP_WORDS for p in pieces)


_ID_PIECES: Final = lazy(r"[-:/_.\s][-:/_.\s]*")  # "[...]+", opening with the class: see WORD
