/**
 * The failure and "nothing found" phrasings of the languages agents' tools
 * answer in besides English, for `output-signals.ts`: a tool that says
 * "错误：…", "Fehler: …" or "no se encontraron resultados" fails or finds
 * nothing as surely as one that says it in English. Regular-expression
 * sources, joined into the English patterns; and the nudges a harness or a
 * user sends to keep an agent going, for `turns.ts`.
 */

// After a word in an alphabet with spaces: a separator or the end, since `\b` only knows ASCII letters.
const END = "(?=[\\s:：,，.。!！;；()（）\\[\\]-]|$)";

/** Words that open a first line reporting a failure: error, failed, exception, refused, cannot. */
export const FAILURE_OPENINGS: readonly string[] = [
  // Chinese (simplified and traditional), Japanese, Korean: no spaces, no boundary needed.
  "错误|錯誤|出错|出錯|失败|失敗|异常|異常|拒绝|拒絕|无法|無法|不允许|不允許",
  "エラー|例外|拒否|できません",
  "오류|에러|실패|거부",
  // German, French, Spanish, Portuguese, Italian, Dutch, Russian, Turkish, Polish.
  `(fehler|fehlgeschlagen|zugriff verweigert|erreur|échec|échoué|accès refusé|impossible de|fallo|falló|no se pudo|acceso denegado|erro|falha|falhou|não foi possível|acesso negado|errore|impossibile|accesso negato|fout|mislukt|ошибка|сбой|не удалось|отказано|hata|başarısız|błąd)${END}`,
];

/** Phrases that say a lookup found nothing, anywhere in a short text. */
export const NOTHING_SAID: readonly string[] = [
  "没有找到|沒有找到|未找到|找不到|无结果|無結果|没有(相关|匹配)?的?(结果|数据|记录)|沒有(相關|匹配)?的?(結果|資料|記錄)|暂无|暫無",
  "見つかりません|見つかりませんでした|結果がありません|該当なし|データがありません",
  "찾을 수 없|결과가 없|검색 결과 없",
  `(keine (ergebnisse|treffer|daten|einträge)|nicht gefunden|aucune? (résultat|donnée|élément|enregistrement)s?|introuvable|non trouvée?|sin resultados|ningún resultado|no se encontr(ó|aron)|no encontrad[oa]|nenhum (resultado|registro)|sem resultados|não encontrad[oa]|nessun (risultato|dato)|non trovat[oa]|geen resultaten|niet gevonden|ничего не найдено|не найден[оа]?|нет (результатов|данных)|sonuç bulunamadı|bulunamadı)${END}`,
];

/**
 * Words that only ask an agent to go on ("продолжай", "sigue", "weiter", "继续"), spelled as people
 * write them: `turns.ts` reads them through the tokenizer that reads the messages.
 */
export const CONTINUE_WORDS: readonly string[] = [
  "继续", "請繼續", "请继续", "继续吧", "繼續", "好", "好的", "是的",
  "続けて", "続けてください", "続行", "はい", "お願いします",
  "계속", "계속해", "계속해줘", "계속하세요", "네", "진행해",
  "продолжай", "продолжайте", "продолжи", "продолжить", "давай", "дальше", "далее", "да", "ок", "хорошо", "пожалуйста", "спасибо",
  "continua", "continuar", "continuez", "sigue", "siga", "seguir", "prossiga", "prosegui", "procede", "adelante", "avanti", "vai", "vas",
  "si", "sim", "oui", "ja", "vale", "claro", "favor", "por", "gracias", "obrigado", "merci", "grazie", "danke", "bitte",
  "weiter", "weitermachen", "fortfahren", "mach", "los",
];
